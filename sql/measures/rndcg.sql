-- Rndcg: nDCG at rank R (trec_eval's m_Rndcg), grades as gains unless Rndcg.1=3,2=9 maps them.
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_dcg_totals, eval_dcg_steps, eval_ideal_dcg (sql/eval/07_dcg.sql), eval_params
-- (measure) of $measures.
-- trec_eval: gains, discount and ideal ranking as ndcg's (sql/measures/ndcg.sql). -l plays no part
-- except in the guard R = 0 -> 0 (trec_eval issue #35).
--   Rndcg = mean of DCG(<= c) / IDCG(<= c) over the ideal positions c after which the ideal gain
--           changes (the last one, c = nrel, always counts), plus DCG / IDCG once more when
--           n > nrel + 1 (trec_eval's loop adds that term only then); 0 when R = 0.
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
        t.num_ret,
        t.num_rel,
        t.measure,
        t.scheme,
        t.dcg,
        t.nrel,
        t.idcg
    from eval_dcg_totals as t
    inner join params as p
        on p.measure = t.measure
),

change_points as (
    -- ideal positions after which the ideal gain changes (always the last one)
    select
        e.run_id,
        e.query_id,
        e.measure,
        e.scheme,
        i.position,
        i.idcg_so_far
    from evaluated as e
    inner join eval_ideal_dcg as i
        on i.query_id = e.query_id
       and i.scheme = e.scheme
       and (i.next_gain is null or i.next_gain <> i.gain)
),

change_ranks as (
    -- the last retrieved document with a gain at or above each change point (null: none)
    select
        c.run_id,
        c.query_id,
        c.measure,
        c.scheme,
        c.position,
        c.idcg_so_far,
        max(d.rank) as last_rank
    from change_points as c
    left join eval_dcg_steps as d
        on d.run_id = c.run_id
       and d.query_id = c.query_id
       and d.scheme = c.scheme
       and d.rank <= c.position
    group by c.run_id, c.query_id, c.measure, c.scheme, c.position, c.idcg_so_far
),

change_terms as (
    -- the running DCG there over the running IDCG at the change point
    select
        r.run_id,
        r.query_id,
        r.measure,
        r.position,
        coalesce(d.dcg_so_far, 0.0) / r.idcg_so_far as term
    from change_ranks as r
    left join eval_dcg_steps as d
        on d.run_id = r.run_id
       and d.query_id = r.query_id
       and d.scheme = r.scheme
       and d.rank = r.last_rank
),

change_sums as (
    select
        run_id,
        query_id,
        measure,
        sum(term order by position) as term_sum,
        count(*) as term_count
    from change_terms
    group by run_id, query_id, measure
),

rndcg_sums as (
    select
        e.run_id,
        e.query_id,
        e.measure,
        e.num_rel,
        coalesce(c.term_sum, 0.0)
            + case when e.num_ret > e.nrel + 1 and e.idcg > 0 then e.dcg / e.idcg else 0.0 end as term_sum,
        coalesce(c.term_count, 0)
            + case when e.num_ret > e.nrel + 1 and e.idcg > 0 then 1 else 0 end as term_count
    from evaluated as e
    left join change_sums as c
        on c.run_id = e.run_id
       and c.query_id = e.query_id
       and c.measure = e.measure
),

final as (
    select
        run_id,
        query_id,
        measure,
        case
            when num_rel = 0 then 0.0
            -- no ideal gain > 0 while R > 0 (gain map or -l 0): trec_eval divides 0 by 0
            when term_count = 0 then cast('nan' as double)
            else term_sum / term_count
        end as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from rndcg_sums
)

select * from final
