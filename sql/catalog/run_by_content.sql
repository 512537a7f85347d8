-- run_by_content: the stored run holding these bytes (its sha256), oldest first: a file of a batch
-- ingest already stored is named and tagged as that run (warehouse/ingestion/batch.py).
-- Grain: one row, or none. Inputs: runs, $sha256.
-- trec_eval: none.
select name, tag, ir_metadata, run_id from runs where sha256 = $sha256 order by run_id limit 1
