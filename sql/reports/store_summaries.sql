-- store_summaries: report_summaries (leaderboard_summaries.sql) stored in score_summaries (schema
-- 16), once whoever stores them first; then report_summaries is emptied, as the pages read them
-- from score_summaries from now on.
-- Grain: one row per report_summaries row.
-- Inputs: report_summaries (temporary).
-- trec_eval: the values as leaderboard_summaries.sql computed them (trec_eval's "all" line).
insert into score_summaries (evaluation_id, measure, run_id, scores_at, query_count, value, queries)
select
    evaluation_id,
    measure,
    run_id,
    scores_at,
    query_count,
    value,
    queries
from report_summaries
on conflict do nothing;

delete from report_summaries;
