-- Schema version 21: the sha256 of a run's and a qrels set's text (runs.text_sha256,
-- qrels_sets.text_sha256), beside that of its file's bytes (sha256). A run or a set is known by its
-- content: before this version by its file's bytes only, so `gzip BM25.txt` and the folder ingested
-- again stored BM25.txt.gz as a second run beside BM25 (a folder of per-collection archives was
-- refused as new versions), and a gzipped qrels file was "qrels set ... already exists with
-- different content", which --replace answered by dropping every score computed with it. Now a file
-- whose text a stored run or set holds is that run or set, compressed or not
-- (warehouse/ingestion/batch.py, files.py; catalog/run_by_content.sql, qrels_sets_by_content.sql).
-- Grain: one value per run and per qrels set.
-- Inputs: set by ingest from now on (for a plain file it equals sha256; for a compressed one it is
-- the sha256 of the decompressed text). NULL for what was stored before this version and for a
-- file Spark read where it lives: its content is its sha256 (coalesce(text_sha256, sha256)), which
-- for a plain file is its text's already; a compressed file stored before is known by its bytes only.
-- trec_eval: nothing of its output depends on these columns.
-- Written to run again (a test re-applies migrations from an earlier version).
alter table runs add column if not exists text_sha256 varchar;
alter table qrels_sets add column if not exists text_sha256 varchar;
