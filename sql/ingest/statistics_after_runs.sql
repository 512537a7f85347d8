-- statistics after runs: the planner's statistics of the tables a run ingest writes, taken once
-- the runs are stored (a server warehouse; DuckDB keeps them as it writes).
-- Grain: none (no rows). Inputs: runs, run_queries, run_rows, judged_run_rows (written by the
-- ingest).
-- trec_eval: none.
-- Why: as sql/ingest/statistics_after_qrels.sql: a new run's rows are unknown to the planner until
-- autovacuum samples them. ANALYZE reads a sample of a table (30,000 rows at PostgreSQL's default
-- statistics target), not all of it, and runs once per ingest call, not once per run.

-- irw: postgres only
analyze runs;

-- irw: postgres only
analyze run_queries;

-- irw: postgres only
analyze run_rows;

-- irw: postgres only
analyze judged_run_rows
