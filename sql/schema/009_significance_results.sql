-- Schema version 9: significance_results, paired test results stored once and read by every
-- later report, so a leaderboard of a thousand runs tests only the pairs it has not tested before.
-- Grain: one row per evaluation x measure x (run, baseline) pair x the stored scores of both runs
--        x test settings. The key holds everything a result depends on:
--        - evaluation_id, measure (its stored name): which per-query scores are compared;
--        - run_id, baseline_id: the pair (the test is run minus baseline);
--        - run_scores_at, baseline_scores_at, with run_queries, baseline_queries: the computed_at
--          and query_count of each run's `evaluated` row for that evaluation and measure. Scores
--          computed again (`irw eval --recompute`, a run replaced) get a new computed_at, so a
--          result over the old scores is never read for the new ones;
--        - test ('randomization', 'bootstrap', 'ttest'), seed, permutations (sign flips or
--          resamples; 0 with seed 0 for the t-test, which uses neither), alpha (the interval's
--          level is 1 - alpha), method (warehouse.evaluation.stats.METHOD: raised when the way a test is
--          computed changes, so results of an older method are not read).
-- Inputs: written by warehouse/reports/pairs.py only, `insert ... on conflict do nothing` (two
-- processes that compute the same result store it once); read by the same module.
-- What is stored is the uncorrected result: queries (paired; run_only and baseline_only: the
-- queries only one of the two was evaluated on), the two means over the paired queries, the mean
-- difference, its interval, the statistic, the p-value, wins / ties / losses and whether every
-- sign pattern was enumerated (nulls stand for NaN: no test over 0 queries, or a t-test over 1).
-- Corrections for multiple testing depend on the whole family a report tests (the board grows
-- with every run), so they are applied when a report reads the results.
-- trec_eval: none; the tests are warehouse/evaluation/stats.py's over the scores trec_eval's -q lines hold.
-- Rows go with their run or qrels set (warehouse/store/catalog.py). Written to run again (a test
-- re-applies migrations from an earlier version).
create table if not exists significance_results (
    evaluation_id       integer not null,
    measure             varchar not null,
    run_id              integer not null,
    baseline_id         integer not null,
    run_scores_at       timestamp not null,
    run_queries         integer not null,
    baseline_scores_at  timestamp not null,
    baseline_queries    integer not null,
    test                varchar not null,
    seed                bigint not null,
    permutations        bigint not null,
    alpha               double not null,
    method              integer not null,
    queries             integer not null,
    run_only            integer not null,
    baseline_only       integer not null,
    run_mean            double,
    baseline_mean       double,
    diff                double,
    ci_low              double,
    ci_high             double,
    statistic           double,
    p_value             double,
    wins                integer not null,
    ties                integer not null,
    losses              integer not null,
    exact               boolean not null,
    computed_at         timestamp not null default current_timestamp,
    primary key (evaluation_id, measure, run_id, baseline_id, run_scores_at, run_queries, baseline_scores_at,
                 baseline_queries, test, seed, permutations, alpha, method)
);
