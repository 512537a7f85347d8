-- insert_run: the row of a run evaluated on Spark, its rows not stored (rows_stored = false,
-- schema 11), named as `irw ingest run` of the same file would name it (warehouse/ingestion/batch.py).
-- Grain: one row inserted, its run_id returned. Inputs: $name, $system, $tag, $description,
-- $parameters (a run the target holds already keeps its own, as `irw ingest` keeps them),
-- $source_path, $sha256 (the file's bytes'), $text_sha256 (its text's, schema 21; NULL for a file
-- Spark read where it lives), $file_created_at, $date_source, $row_count, $query_count.
-- trec_eval: none (what Spark computed is stored as it is).
insert into runs (name, system, tag, description, parameters, source_path, sha256, text_sha256,
    file_created_at, date_source, row_count, query_count, rows_stored)
values ($name, $system, $tag, $description, $parameters, $source_path, $sha256, $text_sha256, $file_created_at,
    $date_source, $row_count, $query_count, false)
returning run_id
