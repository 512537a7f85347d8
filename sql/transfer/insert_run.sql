-- insert_run: a run's row, as run.sql read it from another warehouse, with this warehouse's new
-- run_id (warehouse/store/transfer.py, ship_run).
-- Grain: one row inserted, its run_id returned. Inputs: a $name per column of run.sql but run_id.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
insert into runs (name, system, tag, description, parameters, ir_metadata, source_path, sha256,
    text_sha256, file_created_at, date_source, ingested_at, row_count, query_count, rows_stored)
values ($name, $system, $tag, $description, $parameters, $ir_metadata, $source_path, $sha256,
    $text_sha256, $file_created_at, $date_source, $ingested_at, $row_count, $query_count, $rows_stored)
returning run_id
