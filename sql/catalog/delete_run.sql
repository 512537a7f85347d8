-- delete_run: a run and every row derived from it (`irw rm run`, replacing a run); the caller
-- holds the transaction (warehouse/store/catalog.py, delete_run).
-- Grain: one statement per table holding rows keyed by the run. Inputs: $run_id.
-- Children are deleted before parents: DuckDB has no cascading deletes (see sql/schema/001_core.sql).
-- Every table exists once the schema is migrated, which opening a warehouse does.
-- trec_eval: none.

-- stored test results (schema 009) of the run against a baseline, or of a run against it
delete from significance_results where run_id = $run_id or baseline_id = $run_id;
delete from score_summaries where run_id = $run_id; -- schema 16
delete from scores where run_id = $run_id;
delete from evaluated where run_id = $run_id;
delete from judged_run_rows where run_id = $run_id;
delete from run_queries where run_id = $run_id;
delete from run_rows where run_id = $run_id;
delete from runs where run_id = $run_id;
