-- delete_staged_run_rows: a run's rows in the local staging database, once sent to the server
-- warehouse (warehouse/ingestion/files.py, store_missing_rows).
-- Grain: none (a statement). Inputs: run_rows (staging's), $run_id.
-- trec_eval: none (reading the staged file, before anything is stored).
delete from run_rows where run_id = $run_id
