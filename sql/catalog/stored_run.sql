-- stored_run: what ingest needs to know of a stored run of a name (is it this content? are its
-- rows here, or was it evaluated on Spark without them: schema 11?). content_sha256 is what the run
-- is known by (its text's sha256, schema 21, else its file's); sha256 its file's bytes', which a
-- file ingested again matches before its text is read.
-- Grain: one row, or none. Inputs: runs, $name.
-- trec_eval: none.
select run_id, coalesce(text_sha256, sha256) as content_sha256, row_count, query_count,
    coalesce(rows_stored, true) as rows_stored, sha256
from runs
where name = $name
