-- edit_run_parameters: a stored run's parameters, replaced in place (`irw edit run --param`,
-- `irw ingest run --replace --param` on bytes already stored).
-- Grain: one row (the run). Inputs: $run_id, $parameters (a map on DuckDB, JSONB on PostgreSQL,
-- bound as insert_run.sql binds them).
-- trec_eval: none.
update runs set parameters = $parameters where run_id = $run_id
