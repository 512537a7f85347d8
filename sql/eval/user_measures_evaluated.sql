-- user measures evaluated: the stored (run, user measure) pairs of an evaluation with the hash of
-- the definition their scores were computed with, so that another definition's are computed again.
-- Grain: one row per stored run x user measure. Inputs: evaluated; $evaluation_id, $run_ids,
-- $measures (the stored names of the user measures asked for).
-- trec_eval: none.
select
    run_id,
    measure,
    definition_hash
from evaluated
where evaluation_id = $evaluation_id
  and run_id in (select unnest($run_ids))
  and measure in (select unnest($measures))
