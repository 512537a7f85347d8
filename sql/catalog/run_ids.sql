-- run_ids: the run_id of each stored run among the names asked for (warehouse/store/catalog.py, run_ids).
-- Grain: one row per name asked for that a stored run has; no order (the caller keeps the order
-- it was given). Inputs: runs, $names (a list of run names).
-- trec_eval: none.
select name, run_id from runs where name in (select unnest($names))
