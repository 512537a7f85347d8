-- insert_run: the row of a new run, before its rows (row_count and query_count are set by
-- sql/ingest/count_run.sql once they are stored).
-- Grain: one row (the run); returns its run_id.
-- Inputs: the run's name, system, tag (trec_eval's runid), description, parameters (a map),
-- ir_metadata header, source path, sha256 of the file and of its text (a compressed file's
-- decompressed text, schema 21; NULL when the file was not hashed), date and where the date came from.
-- trec_eval: none (the run's catalog row); $tag is the runid trec_eval prints: the last line's tag.
insert into runs (name, system, tag, description, parameters, ir_metadata, source_path, sha256,
                  text_sha256, file_created_at, date_source, row_count, query_count)
values ($name, $system, $tag, $description, $parameters, $ir_metadata, $source_path, $sha256,
        $text_sha256, $run_date, $date_source, 0, 0)
returning run_id
