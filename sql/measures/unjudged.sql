-- unjudged at k: unj_k, trec_eval 10.0's m_unjudged (not in 9.0.8).
-- Grain: one row per run x evaluated query x requested cutoff.
-- Inputs: eval_judged (judged retrieved documents and their ranks), eval_run_queries (num_ret =
-- n), eval_params (measure, k) of $measures.
-- trec_eval: the documents in the top min(k, n) that the qrels do not judge, or judge with a
-- negative grade, divided by k (even when fewer than k were retrieved). Counted here as
-- min(k, n) minus the documents judged with a grade >= 0 in the top k. -l plays no part.
-- numerator/denominator carry the counts so micro averages pool them.
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure, k
    from eval_params
    where measure in (select unnest($measures))
),

judged_at_k as (
    select
        j.run_id,
        j.query_id,
        p.measure,
        count(*) as judged_count
    from eval_judged as j
    inner join params as p
        on j.rank <= p.k
    where j.grade >= 0
    group by j.run_id, j.query_id, p.measure
),

counted as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        cast(least(p.k, q.num_ret) - coalesce(h.judged_count, 0) as double) as numerator,
        cast(p.k as double) as denominator
    from eval_run_queries as q
    cross join params as p
    left join judged_at_k as h
        on h.run_id = q.run_id
       and h.query_id = q.query_id
       and h.measure = p.measure
),

final as (
    select
        run_id,
        query_id,
        measure,
        numerator / denominator as value,
        numerator,
        denominator
    from counted
)

select * from final
