-- store_tests: paired test results just computed, stored under everything they depend on (schema
-- 009), once: a result another process stored first is kept (on conflict do nothing).
-- Grain: one row of significance_results per row of report_new_tests.
-- Inputs: report_new_tests (temporary: the key's evaluation, measure, runs and score versions,
-- and the result), $test, $seed, $permutations, $alpha, $method.
-- trec_eval: none; uncorrected results of warehouse/evaluation/stats.py's tests.
insert into significance_results (
    evaluation_id, measure, run_id, baseline_id, run_scores_at, run_queries, baseline_scores_at,
    baseline_queries, test, seed, permutations, alpha, method, queries, run_only, baseline_only,
    run_mean, baseline_mean, diff, ci_low, ci_high, statistic, p_value, wins, ties, losses, exact
)
select
    evaluation_id,
    measure,
    run_id,
    baseline_id,
    run_scores_at,
    run_queries,
    baseline_scores_at,
    baseline_queries,
    $test,
    $seed,
    $permutations,
    $alpha,
    $method,
    queries,
    run_only,
    baseline_only,
    run_mean,
    baseline_mean,
    diff,
    ci_low,
    ci_high,
    statistic,
    p_value,
    wins,
    ties,
    losses,
    exact
from report_new_tests
on conflict (
    evaluation_id, measure, run_id, baseline_id, run_scores_at, run_queries, baseline_scores_at,
    baseline_queries, test, seed, permutations, alpha, method
) do nothing
