-- qrels_sets_by_content: the stored qrels sets other than $name holding these bytes (their
-- sha256), oldest first: a file ingested under a new name says which sets hold it already
-- (warehouse/ingestion/files.py ingest_qrels).
-- Grain: one row per such set. Inputs: qrels_sets, $sha256, $name.
-- trec_eval: none.
select name from qrels_sets where sha256 = $sha256 and name <> $name order by qrels_set_id
