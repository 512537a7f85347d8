-- run_named: whether a run of that name is stored.
-- Grain: one row, or none. Inputs: runs, $name.
-- trec_eval: none.
select 1 from runs where name = $name
