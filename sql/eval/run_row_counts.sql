-- run row counts: how many rows each run of a computation holds, for warehouse/evaluation/evaluator.py to
-- split the computation into batches of runs (Evaluator._batches).
-- Grain: one row per run. Inputs: runs; $run_ids.
-- trec_eval: none (it sizes the batches runs are computed in).
-- Why: the evaluation's temp tables hold every row of the runs computed together (~130 bytes a
-- row); computing 10,000 runs of 5,000 lines at once peaked at 7 GB.
select
    run_id,
    coalesce(row_count, 0) as row_count
from runs
where run_id in (select unnest($run_ids))
