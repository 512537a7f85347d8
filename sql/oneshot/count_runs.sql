-- count_runs: the row and query counts of the runs of oneshot_runs (one chunk's), from run_queries,
-- as sql/ingest/count_run.sql sets one run's.
-- Grain: one update of each run of the chunk.
-- Inputs: run_queries, runs, oneshot_runs (name).
-- trec_eval: as sql/ingest/count_run.sql: a run's rows are the sum of its queries' num_ret.
update runs
set row_count = counts.row_count,
    query_count = counts.query_count
from (
    select
        run_id,
        sum(num_ret) as row_count,
        count(*) as query_count
    from run_queries
    where run_id in (select run_id from runs where name in (select name from oneshot_runs))
    group by run_id
) as counts
where runs.run_id = counts.run_id
