-- ndcg_cut: nDCG@k (trec_eval's m_ndcg_cut), grades > 0 as gains (gain maps are ignored).
-- Grain: one row per run x evaluated query x requested cutoff.
-- Inputs: eval_dcg_totals, eval_dcg_steps, eval_ideal_dcg (sql/eval/07_dcg.sql; ndcg_cut's gain
-- scheme is always '', grades as gains: sql/eval/06_gains.sql), eval_params (measure, k) of
-- $measures.
-- trec_eval: the discount of rank r is log2(r + 1); the ideal ranking is every judged document of
-- the query (retrieved or not) with grade > 0, by grade descending. -l plays no part.
--   ndcg_cut_k = DCG@k / IDCG@k, both over the first k positions (0 when IDCG@k = 0).
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure, k
    from eval_params
    where measure in (select unnest($measures))
),

evaluated as (
    -- every (run, query, cutoff) to score
    select
        t.run_id,
        t.query_id,
        t.measure,
        p.k,
        t.scheme,
        least(p.k, t.nrel) as ideal_cut
    from eval_dcg_totals as t
    inner join params as p
        on p.measure = t.measure
),

cut_ranks as (
    -- the last retrieved document with a gain within the cutoff
    select
        e.run_id,
        e.query_id,
        e.measure,
        e.scheme,
        max(d.rank) as last_rank
    from evaluated as e
    inner join eval_dcg_steps as d
        on d.run_id = e.run_id
       and d.query_id = e.query_id
       and d.scheme = e.scheme
       and d.rank <= e.k
    group by e.run_id, e.query_id, e.measure, e.scheme
),

cut_dcg as (
    -- the running DCG there
    select
        c.run_id,
        c.query_id,
        c.measure,
        d.dcg_so_far as dcg_at_k
    from cut_ranks as c
    inner join eval_dcg_steps as d
        on d.run_id = c.run_id
       and d.query_id = c.query_id
       and d.scheme = c.scheme
       and d.rank = c.last_rank
),

final as (
    select
        e.run_id,
        e.query_id,
        e.measure,
        coalesce(d.dcg_at_k / nullif(i.idcg_so_far, 0.0), 0.0) as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from evaluated as e
    left join cut_dcg as d
        on d.run_id = e.run_id
       and d.query_id = e.query_id
       and d.measure = e.measure
    -- the running IDCG at min(k, n) (ideal positions run 1..n; one row per query, scheme and
    -- position), joined here rather than through a step of its own keyed by run, query and
    -- measure: PostgreSQL estimated that step at one row and compared every (run, query) with
    -- every row of it (25M comparisons, 3.4 s of a 100-run leaderboard)
    left join eval_ideal_dcg as i
        on i.query_id = e.query_id
       and i.scheme = e.scheme
       and i.position = e.ideal_cut
)

select * from final
