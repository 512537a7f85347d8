-- run_by_content: the stored run holding this content, oldest first: $sha256 is a file's bytes' or
-- its text's sha256 (a compressed file's decompressed text, schema 21), matched against both of a
-- stored run's. A file of a batch ingest already stored is named and tagged as that run
-- (warehouse/ingestion/batch.py); content_sha256 is what the run is known by (runs.text_sha256,
-- else runs.sha256 for a run stored before schema 21).
-- Grain: one row, or none. Inputs: runs, $sha256.
-- trec_eval: none.
select name, tag, ir_metadata, run_id, coalesce(text_sha256, sha256) as content_sha256
from runs
where $sha256 <> '' and (sha256 = $sha256 or text_sha256 = $sha256)
order by run_id
limit 1
