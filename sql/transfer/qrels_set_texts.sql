-- qrels_set_texts: every column of a stored qrels set's row, whose texts are checked for NUL.
-- Grain: one row, or none. Inputs: qrels_sets, $name.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select * from qrels_sets where name = $name
