-- run_settings: what `irw edit run` and `irw ingest run --replace` on bytes already stored may
-- change of a run, as stored.
-- Grain: one row (the run). Inputs: runs, $run_id.
-- trec_eval: none.
select system, description, parameters, file_created_at, date_source from runs where run_id = $run_id
