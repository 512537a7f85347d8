-- Schema version 16: score_summaries, each run's summary value of a stored measure (trec_eval's
-- "all" line, as eval/summary.sql computes it), stored by a served leaderboard page the first time
-- it reads them, so a page over 10,000 runs reads 10,000 summaries per measure instead of summing
-- every per-query score again (sql/reports/leaderboard_summaries.sql).
-- Grain: one row per evaluation x measure (its stored name) x run x the stored scores it sums: the
--        computed_at and query_count of the run's `evaluated` row. Scores computed again get a new
--        computed_at, so a summary of the old scores is never read for the new ones.
-- Inputs: written by sql/reports/store_summaries.sql (`insert ... on conflict do nothing`: two
-- processes that compute the same summary store it once), read by sql/reports/leaderboard_page.sql
-- and leaderboard_ranges.sql. Rows go with their run or qrels set (warehouse/store/catalog.py).
-- trec_eval: value is the mean over the evaluated queries, the sum for counts, the geometric mean
-- (values floored at 1e-5) for gm_map and gm_bpref, summed in query-id order; queries counts them.
-- Written to run again (a test re-applies migrations from an earlier version).
create table if not exists score_summaries (
    evaluation_id  integer not null,
    measure        varchar not null,
    run_id         integer not null,
    scores_at      timestamp not null,
    query_count    integer not null,
    value          double,
    queries        integer not null,
    primary key (evaluation_id, measure, run_id, scores_at, query_count)
);
