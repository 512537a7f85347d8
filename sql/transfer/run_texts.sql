-- run_texts: every column of a stored run's row, whose texts are checked for NUL (run_nul.sql).
-- Grain: one row, or none. Inputs: runs, $name.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select * from runs where name = $name
