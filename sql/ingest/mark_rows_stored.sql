-- mark rows stored: a run evaluated on Spark (runs.rows_stored false, schema 11) now holds its rows,
-- stored from the same bytes by `irw ingest run` (warehouse/ingestion/files.py store_missing_rows).
-- Grain: one run. Inputs: runs, $run_id.
-- trec_eval: from now on its measures are computed here from its rows, as for any run.
update runs set rows_stored = true where run_id = $run_id
