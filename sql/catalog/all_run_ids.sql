-- all_run_ids: every stored run's id by its name (`irw trec-eval`'s runs, `irw copy`'s source).
-- Grain: one row per stored run, no order. Inputs: runs.
-- trec_eval: none.
select name, run_id from runs
