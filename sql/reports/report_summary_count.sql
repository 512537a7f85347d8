-- report_summary_count: how many summaries a leaderboard page stored (a read-only warehouse that
-- stored some serves them; one that stored none is told how to make them).
-- Grain: one row. Inputs: report_summaries.
-- trec_eval: none.
select count(*) from report_summaries
