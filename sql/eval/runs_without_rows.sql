-- runs without rows: the runs of a computation whose rows the warehouse does not hold (stored by
-- `irw eval --engine spark --into`: their scores and per-query counts, not their rows; schema 11).
-- Grain: one row per such run, in name order. Inputs: runs; $run_ids.
-- trec_eval: a measure computed from no rows would be a zero trec_eval never printed, so
-- warehouse/evaluation/evaluator.py refuses to compute any for these runs.
select
    name
from runs
where run_id in (select unnest($run_ids))
  and not coalesce(rows_stored, true)
order by name
