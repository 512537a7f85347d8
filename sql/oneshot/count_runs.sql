-- count_runs: every run's row and query counts, from run_queries, as sql/ingest/count_run.sql
-- sets one run's.
-- Grain: one update of each run.
-- Inputs: run_queries, runs.
update runs
set row_count = counts.row_count,
    query_count = counts.query_count
from (
    select
        run_id,
        sum(num_ret) as row_count,
        count(*) as query_count
    from run_queries
    group by run_id
) as counts
where runs.run_id = counts.run_id
