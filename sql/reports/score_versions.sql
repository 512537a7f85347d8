-- score_versions: which stored scores a report compares, as the version a stored test result is
-- keyed by (schema 009): when each run's scores of a measure were computed, and over how many queries.
-- Grain: one row per run of $run_ids x measure of report_wanted that the evaluation holds scores of.
-- Inputs: evaluated; report_wanted (temporary: evaluation_id, stored, measure, position), $run_ids.
-- trec_eval: none (bookkeeping). Scores computed again get a new computed_at (sql/eval's
-- bookkeeping of `evaluated`), so a result over older scores keeps an older key and is not read.
select
    e.evaluation_id,
    e.run_id,
    w.measure,
    e.query_count,
    e.computed_at
from evaluated as e
inner join report_wanted as w
    on w.evaluation_id = e.evaluation_id
   and w.stored = e.measure
where e.run_id in (select unnest($run_ids))
order by e.run_id, w.position
