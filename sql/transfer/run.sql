-- run: a stored run's row as it travels to another warehouse (warehouse/store/transfer.py, ship_run);
-- its run_id is the source's, every other column is inserted as it is (insert_run.sql).
-- Grain: one row, or none. Inputs: runs, $name.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select run_id, name, system, tag, description, parameters, ir_metadata, source_path, sha256, text_sha256,
    file_created_at, date_source, ingested_at, row_count, query_count, rows_stored
from runs where name = $name
