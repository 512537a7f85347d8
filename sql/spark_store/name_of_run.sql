-- name_of_run: the name under which the target holds a run of this content, if it does, and the
-- content sha256 it is known by: a run evaluated on Spark and the same file ingested are one run.
-- $sha256 is a file's bytes' or text's sha256 (schema 21), matched as catalog/run_by_content.sql
-- matches it.
-- Grain: one row, or none. Inputs: runs, $sha256.
-- trec_eval: none (what Spark computed is stored as it is).
select name, coalesce(text_sha256, sha256) as content_sha256
from runs
where $sha256 <> '' and (sha256 = $sha256 or text_sha256 = $sha256)
order by name
limit 1
