-- qrels_sets_by_content: the stored qrels sets other than $name holding this content, oldest first:
-- $sha256 is a file's bytes' or its text's sha256 (a compressed file's decompressed text, schema
-- 22), matched against both of a stored set's. A file ingested without a name takes the name of the
-- set holding it (default_set_name), and one stored under a new name says which sets hold it
-- already (warehouse/ingestion/files.py ingest_qrels).
-- Grain: one row per such set. Inputs: qrels_sets, $sha256, $name.
-- trec_eval: none.
select name
from qrels_sets
where $sha256 <> '' and (sha256 = $sha256 or text_sha256 = $sha256) and name <> $name
order by qrels_set_id
