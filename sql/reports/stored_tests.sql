-- stored_tests: the stored paired test results (schema 009) of the runs' current scores under the
-- report's test settings, uncorrected.
-- Grain: one row per stored (measure, run, baseline) among report_wanted x $run_ids x
-- $baseline_ids whose key matches both runs' current `evaluated` rows (computed_at and
-- query_count) and the settings; the caller keeps the pairs it asked for.
-- Inputs: significance_results, evaluated; report_wanted (temporary: evaluation_id, stored,
-- measure, position), $run_ids, $baseline_ids, $test, $seed, $permutations, $alpha, $method.
-- trec_eval: none; the tests are warehouse/evaluation/stats.py's over the per-query scores (-q lines).
select
    w.measure,
    t.run_id,
    t.baseline_id,
    t.queries,
    t.run_only,
    t.baseline_only,
    t.run_mean,
    t.baseline_mean,
    t.diff,
    t.ci_low,
    t.ci_high,
    t.statistic,
    t.p_value,
    t.wins,
    t.ties,
    t.losses,
    t.exact
from significance_results as t
inner join report_wanted as w
    on w.evaluation_id = t.evaluation_id
   and w.stored = t.measure
inner join evaluated as r
    on r.evaluation_id = t.evaluation_id
   and r.run_id = t.run_id
   and r.measure = t.measure
   and r.computed_at = t.run_scores_at
   and r.query_count = t.run_queries
inner join evaluated as b
    on b.evaluation_id = t.evaluation_id
   and b.run_id = t.baseline_id
   and b.measure = t.measure
   and b.computed_at = t.baseline_scores_at
   and b.query_count = t.baseline_queries
where t.run_id in (select unnest($run_ids))
  and t.baseline_id in (select unnest($baseline_ids))
  and t.test = $test
  and t.seed = $seed
  and t.permutations = $permutations
  and t.alpha = $alpha
  and t.method = $method
order by w.position, t.run_id, t.baseline_id
