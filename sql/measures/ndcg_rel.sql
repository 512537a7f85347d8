-- ndcg_rel: nDCG averaged over the relevant documents (trec_eval's m_ndcg_rel), grades as gains
-- unless ndcg_rel.1=3,2=9 maps them.
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_dcg_totals, eval_dcg_steps, eval_ideal_dcg (sql/eval/07_dcg.sql), eval_params
-- (measure) of $measures.
-- trec_eval: gains, discount and ideal ranking as ndcg's (sql/measures/ndcg.sql). -l plays no part.
--   ndcg_rel = (sum over retrieved documents with gain > 0 at rank r of DCG(<= r) / IDCG(<= r),
--              the ideal cut at its end, plus (nrel - those documents) * DCG / IDCG) / nrel,
--              nrel = ideal length; 0 unless the sum is > 0.
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure
    from eval_params
    where measure in (select unnest($measures))
),

evaluated as (
    -- every (run, query, measure) to score, with the whole-ranking totals
    select
        t.run_id,
        t.query_id,
        t.measure,
        t.scheme,
        t.dcg,
        t.positive_retrieved,
        t.nrel,
        t.idcg
    from eval_dcg_totals as t
    inner join params as p
        on p.measure = t.measure
),

rel_terms as (
    -- at each retrieved document with gain > 0, DCG so far over the ideal DCG so far
    select
        e.run_id,
        e.query_id,
        e.measure,
        sum(d.dcg_so_far / nullif(i.idcg_so_far, 0.0) order by d.rank) as term_sum
    from evaluated as e
    inner join eval_dcg_steps as d
        on d.run_id = e.run_id
       and d.query_id = e.query_id
       and d.scheme = e.scheme
       and d.gain > 0
    inner join eval_ideal_dcg as i
        on i.query_id = e.query_id
       and i.scheme = e.scheme
       and i.position = least(d.rank, e.nrel)
    group by e.run_id, e.query_id, e.measure
),

rel_sums as (
    select
        e.run_id,
        e.query_id,
        e.measure,
        e.nrel,
        coalesce(t.term_sum, 0.0)
            + cast(e.nrel - e.positive_retrieved as double) * coalesce(e.dcg / nullif(e.idcg, 0.0), 0.0)
            as rel_sum
    from evaluated as e
    left join rel_terms as t
        on t.run_id = e.run_id
       and t.query_id = e.query_id
       and t.measure = e.measure
),

final as (
    select
        run_id,
        query_id,
        measure,
        case when rel_sum > 0 then rel_sum / cast(nrel as double) else 0.0 end as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from rel_sums
)

select * from final
