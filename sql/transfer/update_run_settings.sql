-- update_run_settings: a copied run's settings (system, description, parameters, date) made the
-- source warehouse's, in place, where the target holds the same rows under the same name
-- (`irw copy --replace` after `irw edit run` in the source; warehouse/store/transfer.py).
-- Grain: one row (the run). Inputs: $run_id (the target's), and the values as run.sql read them
-- from the source (NULL is stored as NULL: a description the source does not have is cleared).
-- Everything derived from the run (run_rows, scores, evaluated, significance_results) is keyed by
-- run_id and stays attached.
-- trec_eval: none (the run's rows, hence every score, are unchanged).
update runs
set system = $system,
    description = $description,
    parameters = $parameters,
    file_created_at = $file_created_at,
    date_source = $date_source
where run_id = $run_id
