-- name_of_run: the name under which the target holds a run of these bytes, if it does: a run
-- evaluated on Spark and the same file ingested are one run.
-- Grain: one row, or none. Inputs: runs, $sha256.
-- trec_eval: none (what Spark computed is stored as it is).
select name from runs where sha256 = $sha256 order by name limit 1
