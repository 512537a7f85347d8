-- run_names: the runs `irw copy` copies when none is named, in the order they were stored.
-- Grain: one row per stored run. Inputs: runs.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select name from runs order by run_id
