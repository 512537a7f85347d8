-- scores: a run's per-query scores of the measures copied, with the target's ids, to be sent to
-- the target (warehouse/store/transfer.py, _copy_scores).
-- Grain: one row per query and measure. Inputs: scores, $source_eval, $source_run, $measures
-- (a list), the target's $evaluation_id, $qrels_set_id, $run_id.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select $evaluation_id as evaluation_id, $qrels_set_id as qrels_set_id, $run_id as run_id, query_id, measure,
    value, numerator, denominator
from scores
where evaluation_id = $source_eval and run_id = $source_run and measure in (select unnest($measures))
