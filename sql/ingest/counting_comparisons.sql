-- counting_comparisons: an upper bound on the comparisons insert_run_rows_by_counting.sql would make.
-- Grain: one row. Inputs: stage_run, qrels.
-- Each query contributes (judgments in the stored qrels) x (its documents in the run).
with run_counts as (
    select query_id, count(*) as documents
    from stage_run
    group by query_id
),

judgment_counts as (
    select query_id, count(*) as judgments
    from qrels
    group by query_id
),

final as (
    select
        coalesce(sum(r.documents * j.judgments), 0) as comparisons,
        (select count(*) from stage_run) as documents
    from run_counts as r
    inner join judgment_counts as j
        on j.query_id = r.query_id
)

select * from final
