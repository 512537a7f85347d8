-- count_run: a stored run's row and query counts, from its run_queries.
-- Grain: one row (the run); returns the counts.
-- Inputs: run_queries, $run_id.
-- trec_eval: num_ret of a query counts its lines; the run's rows are their sum.
update runs
set row_count = counts.row_count,
    query_count = counts.query_count
from (
    select
        sum(num_ret) as row_count,
        count(*) as query_count
    from run_queries
    where run_id = $run_id
) as counts
where runs.run_id = $run_id
returning runs.row_count, runs.query_count
