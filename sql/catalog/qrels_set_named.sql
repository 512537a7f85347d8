-- qrels_set_named: whether a qrels set of that name is stored.
-- Grain: one row, or none. Inputs: qrels_sets, $name.
-- trec_eval: none.
select 1 from qrels_sets where name = $name
