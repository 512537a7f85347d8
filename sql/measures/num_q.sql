-- num_q: one row per evaluated query with value 1; the summary sums them (trec_eval's num_q).
-- Grain: one row per run x evaluated query. Inputs: eval_run_queries, eval_params of $measures.
-- trec_eval (m_num_q.c): each evaluated query's value is 1; the summary, their sum, is num_q (every
-- qrels query under -c).
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure
    from eval_params
    where measure in (select unnest($measures))
),

final as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        cast(1 as double) as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from eval_run_queries as q
    cross join params as p
)

select * from final
