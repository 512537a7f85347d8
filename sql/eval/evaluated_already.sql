-- evaluated already: the (run, measure) pairs of an evaluation whose scores are stored, so only
-- the others are computed.
-- Grain: one row per stored run x measure. Inputs: evaluated; $evaluation_id, $run_ids.
-- trec_eval: none (bookkeeping: which stored scores need not be computed again).
select
    run_id,
    measure
from evaluated
where evaluation_id = $evaluation_id
  and run_id in (select unnest($run_ids))
