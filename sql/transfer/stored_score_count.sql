-- stored score count: how many per-query scores a warehouse holds of one run ($run_id) or of one
-- qrels set ($qrels_set_id); the other parameter is NULL. `irw copy --replace` says it of the run
-- or set it replaces, as every score computed with the old content goes with it.
-- Grain: one row (the count).
-- Inputs: scores, $run_id, $qrels_set_id.
-- trec_eval: none. The casts type a NULL for PostgreSQL, which cannot infer a bare `$x is null`.
select count(*) as stored_scores
from scores
where (cast($run_id as integer) is null or run_id = $run_id)
  and (cast($qrels_set_id as integer) is null or qrels_set_id = $qrels_set_id)
