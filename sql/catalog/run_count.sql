-- run_count: how many runs are stored (an empty warehouse's errors say to ingest runs).
-- Grain: one row. Inputs: runs.
-- trec_eval: none.
select count(*) from runs
