-- ndcg_cut: nDCG@k (trec_eval's m_ndcg_cut), grades > 0 as gains (gain maps are ignored).
-- Grain: one row per run x evaluated query x requested cutoff.
-- Inputs: eval_dcg_totals, eval_dcg_steps, eval_ideal_dcg (sql/eval/07_dcg.sql; ndcg_cut's gain
-- scheme is always '', grades as gains: sql/eval/06_gains.sql), $params (list of {measure, k}).
-- trec_eval: the discount of rank r is log2(r + 1); the ideal ranking is every judged document of
-- the query (retrieved or not) with grade > 0, by grade descending. -l plays no part.
--   ndcg_cut_k = DCG@k / IDCG@k, both over the first k positions (0 when IDCG@k = 0).
with params as (
    select unnest($params, recursive := true)
),

evaluated as (
    -- every (run, query, cutoff) to score
    select
        t.run_id,
        t.query_id,
        t.measure,
        p.k,
        t.scheme
    from eval_dcg_totals as t
    inner join params as p
        on p.measure = t.measure
),

cut_dcg as (
    select
        e.run_id,
        e.query_id,
        e.measure,
        arg_max(d.dcg_so_far, d.rank) as dcg_at_k
    from evaluated as e
    inner join eval_dcg_steps as d
        on d.run_id = e.run_id
       and d.query_id = e.query_id
       and d.scheme = e.scheme
       and d.rank <= e.k
    group by e.run_id, e.query_id, e.measure
),

cut_idcg as (
    select
        e.run_id,
        e.query_id,
        e.measure,
        arg_max(i.idcg_so_far, i.position) as idcg_at_k
    from evaluated as e
    inner join eval_ideal_dcg as i
        on i.query_id = e.query_id
       and i.scheme = e.scheme
       and i.position <= e.k
    group by e.run_id, e.query_id, e.measure
),

final as (
    select
        e.run_id,
        e.query_id,
        e.measure,
        coalesce(d.dcg_at_k / nullif(i.idcg_at_k, 0.0), 0.0) as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from evaluated as e
    left join cut_dcg as d
        on d.run_id = e.run_id
       and d.query_id = e.query_id
       and d.measure = e.measure
    left join cut_idcg as i
        on i.run_id = e.run_id
       and i.query_id = e.query_id
       and i.measure = e.measure
)

select * from final
