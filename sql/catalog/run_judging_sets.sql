-- run_judging_sets: the stored qrels sets that judge a document a stored run retrieved, for batch
-- naming (as ingest/staged_judging_sets.sql for a staged file).
-- Grain: one row per qrels set. Inputs: qrels_sets, judged_run_rows, $run_id.
-- trec_eval: none (naming only). One probe a set, by judged_run_rows' index (qrels_set_id, run_id)
-- on PostgreSQL.
select s.qrels_set_id
from qrels_sets as s
where exists (
    select 1
    from judged_run_rows as jr
    where jr.qrels_set_id = s.qrels_set_id and jr.run_id = $run_id
)
