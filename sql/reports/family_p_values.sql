-- family_p_values: the p-values of the stored paired tests of the runs' current scores under the
-- report's test settings, uncorrected: what a served leaderboard page corrects as one family over
-- every run of the board, while it reads the whole results (stored_tests.sql) of its page's runs only.
-- Grain: one row per stored (measure, run, baseline) among report_wanted x the board's runs x
-- $baseline_id whose key matches both runs' current `evaluated` rows (computed_at and
-- query_count, as report_values holds them) and the settings, as stored_tests.sql keeps them.
-- Inputs: significance_results; report_values (temporary: the board's runs' current `evaluated`
-- keys by measure position, leaderboard_summaries.sql: a hash join over the board, not a probe
-- of `evaluated` per stored result; a measure at two positions gives its rows twice, read once;
-- PostgreSQL plans it well only with analyze_board.sql's statistics of report_values, taken
-- before: without them it nested-looped the two for over a minute), report_wanted (temporary:
-- evaluation_id, stored, measure, position: the measures tested), $baseline_id, $test, $seed,
-- $permutations, $alpha, $method.
-- trec_eval: none; the tests are warehouse/evaluation/stats.py's over the per-query scores (-q lines).
select
    w.measure,
    t.run_id,
    t.p_value
from significance_results as t
inner join report_wanted as w
    on w.evaluation_id = t.evaluation_id
   and w.stored = t.measure
inner join report_values as r
    on r.evaluation_id = t.evaluation_id
   and r.run_id = t.run_id
   and r.measure = t.measure
   and r.scores_at = t.run_scores_at
   and r.query_count = t.run_queries
inner join report_values as b
    on b.evaluation_id = t.evaluation_id
   and b.run_id = t.baseline_id
   and b.measure = t.measure
   and b.scores_at = t.baseline_scores_at
   and b.query_count = t.baseline_queries
where t.baseline_id = $baseline_id
  and t.test = $test
  and t.seed = $seed
  and t.permutations = $permutations
  and t.alpha = $alpha
  and t.method = $method
order by w.position, t.run_id
