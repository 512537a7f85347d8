-- reciprocal rank: RR (recip_rank) and RR@k.
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_judged, eval_run_queries, eval_params (measure, family, k) of
-- $measures.
-- trec_eval: 1 / rank of the first retrieved relevant document, 0 when none is retrieved.
-- RR@k (ir_measures): 0 when the first relevant document is below rank k.
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure, family, k
    from eval_params
    where measure in (select unnest($measures))
),

first_relevant as (
    select
        run_id,
        query_id,
        min(rank) as first_rank
    from eval_judged
    where is_rel
    group by run_id, query_id
),

final as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        case
            when f.first_rank is null then 0.0
            when p.family = 'recip_rank_cut' and f.first_rank > p.k then 0.0
            else 1.0 / f.first_rank
        end as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from eval_run_queries as q
    cross join params as p
    left join first_relevant as f
        on f.run_id = q.run_id
       and f.query_id = q.query_id
)

select * from final
