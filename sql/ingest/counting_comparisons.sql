-- counting_comparisons: an upper bound on the comparisons insert_run_rows_by_counting.sql would
-- make for run $run_id, beside the run's row count.
-- Grain: one row. Inputs: run_queries (already written for the run), qrels, $run_id.
-- trec_eval: none (it picks counting or sorting by cost; both give the same trec_rank).
-- Each query contributes (judgments in the stored qrels) x (its documents in the run).
with judgment_counts as (
    select query_id, count(*) as judgments
    from qrels
    group by query_id
),

final as (
    select
        coalesce(sum(r.num_ret * j.judgments), 0) as comparisons,
        (select sum(num_ret) from run_queries where run_id = $run_id) as documents
    from run_queries as r
    inner join judgment_counts as j
        on j.query_id = r.query_id
    where r.run_id = $run_id
)

select * from final
