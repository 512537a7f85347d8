-- name_of_qrels_set: the name under which the target holds a qrels set of these bytes, if it does.
-- Grain: one row, or none. Inputs: qrels_sets, $sha256.
-- trec_eval: none (what Spark computed is stored as it is).
select name from qrels_sets where sha256 = $sha256 order by name limit 1
