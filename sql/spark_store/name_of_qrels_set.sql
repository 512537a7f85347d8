-- name_of_qrels_set: the name under which the target holds a qrels set of this content, if it does:
-- $sha256 is a file's bytes' or text's sha256 (schema 22), matched as
-- catalog/qrels_sets_by_content.sql matches it.
-- Grain: one row, or none. Inputs: qrels_sets, $sha256.
-- trec_eval: none (what Spark computed is stored as it is).
select name
from qrels_sets
where $sha256 <> '' and (sha256 = $sha256 or text_sha256 = $sha256)
order by name
limit 1
