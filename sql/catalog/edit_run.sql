-- edit_run: a stored run's name, system, description and date, changed in place
-- (`irw rename run`, `irw edit run`, `irw ingest run --replace` on bytes already stored).
-- Grain: one row (the run). Inputs: $run_id, and the new values; a NULL value keeps the stored one
-- ($date_source goes with $run_date); parameters are edit_run_parameters.sql's. Everything derived
-- from the run (run_rows, scores, evaluated, significance_results) is keyed by run_id and stays
-- attached.
-- trec_eval: none (the run's rows, hence every score, are unchanged).
update runs
set name = coalesce($name, name),
    system = coalesce($system, system),
    description = coalesce($description, description),
    file_created_at = coalesce($run_date, file_created_at),
    date_source = coalesce($date_source, date_source)
where run_id = $run_id
