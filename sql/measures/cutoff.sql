-- cutoff measures: P@k, R@k (recall_k), relative_P@k, Success@k, Judged@k.
-- Grain: one row per run x evaluated query x requested (family, k).
-- Inputs: eval_judged (judged retrieved documents with ranks), eval_run_queries,
-- eval_params (measure, family, k) of $measures.
-- trec_eval: P_k divides by k even when fewer than k documents were retrieved; recall_k by R
-- (0 when R = 0); relative_P_k by min(k, R); success_k is 1 when a relevant document is in the
-- top k. Judged@k (ir_measures) is the share of the top k that is judged, denominator k.
-- numerator/denominator carry the counts so micro averages pool them.
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure, family, k
    from eval_params
    where measure in (select unnest($measures))
),

hits as (
    -- only judged documents can be relevant or judged: join them to every cutoff they fall under
    select
        j.run_id,
        j.query_id,
        p.measure,
        count(*) filter (where j.is_rel) as rel_at_k,
        count(*) as judged_at_k
    from eval_judged as j
    inner join params as p
        on j.rank <= p.k
    group by j.run_id, j.query_id, p.measure
),

counted as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        p.family,
        cast(p.k as double) as k,
        cast(q.num_rel as double) as num_rel,
        cast(coalesce(h.rel_at_k, 0) as double) as rel_at_k,
        cast(coalesce(h.judged_at_k, 0) as double) as judged_at_k
    from eval_run_queries as q
    cross join params as p
    left join hits as h
        on h.run_id = q.run_id
       and h.query_id = q.query_id
       and h.measure = p.measure
),

ratios as (
    select
        run_id,
        query_id,
        measure,
        case family
            when 'P' then rel_at_k
            when 'recall' then rel_at_k
            when 'relative_P' then rel_at_k
            when 'success' then case when rel_at_k > 0 then 1.0 else 0.0 end
            when 'judged' then judged_at_k
        end as numerator,
        case family
            when 'P' then k
            when 'recall' then num_rel
            when 'relative_P' then least(k, num_rel)
            when 'success' then 1.0
            when 'judged' then k
        end as denominator
    from counted
),

final as (
    select
        run_id,
        query_id,
        measure,
        coalesce(numerator / nullif(denominator, 0), 0.0) as value,
        numerator,
        denominator
    from ratios
)

select * from final
