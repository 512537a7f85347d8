-- ndcg family: nDCG (ndcg), nDCG@k (ndcg_cut_k), ndcg_rel and Rndcg, as trec_eval computes them.
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_gain_schemes, eval_gain_judged, eval_gain_ideal (sql/eval/06_gains.sql: the gains
-- of retrieved judged documents and the ideal rankings), eval_run_queries (num_ret = n,
-- num_rel = R), $params (list of {measure, family, k}).
-- trec_eval: the gain of a grade is the grade itself unless the measure maps it (ndcg.1=3,2=9
-- binds gain_grades [1, 2] and gain_values [3, 9]); a negative grade looks up level -2 and gets 0
-- unless mapped, an unjudged document gets 0. ndcg_cut ignores gain maps and uses grades > 0.
-- The discount of rank r is log2(r + 1). The ideal ranking is every judged document of the query
-- (retrieved or not) whose gain is > 0, by gain descending. -l plays no part, except in Rndcg's
-- guard R = 0 -> 0 (trec_eval issue #35).
--   ndcg       = DCG / IDCG over the whole ranking and the whole ideal (0 when IDCG = 0).
--   ndcg_cut_k = DCG@k / IDCG@k, both over the first k positions (0 when IDCG@k = 0).
--   ndcg_rel   = (sum over retrieved documents with gain > 0 at rank r of DCG(<= r) / IDCG(<= r),
--                the ideal cut at its end, plus (nrel - those documents) * DCG / IDCG) / nrel,
--                nrel = ideal length; 0 unless the sum is > 0.
--   Rndcg      = mean of DCG(<= c) / IDCG(<= c) over the ideal positions c after which the ideal
--                gain changes (the last one, c = nrel, always counts), plus DCG / IDCG once more
--                when n > nrel + 1 (trec_eval's loop adds that term only then); 0 when R = 0.
-- Gains that differ by less than 1 can sort out of order in trec_eval (its qsort comparator
-- truncates the difference to int); that quirk is not reproduced.
with params as (
    select unnest($params, recursive := true)
),

measures as (
    select
        p.measure,
        p.family,
        p.k,
        s.scheme
    from params as p
    inner join eval_gain_schemes as s
        on s.measure = p.measure
),

judged_gains as (
    select * from eval_gain_judged
),

dcg_steps as (
    -- running DCG at every retrieved document that changes it
    select
        run_id,
        query_id,
        scheme,
        rank,
        gain,
        sum(gain / log2(cast(rank + 1 as double))) over (
            partition by run_id, query_id, scheme order by rank rows between unbounded preceding and current row
        ) as dcg_so_far
    from judged_gains
    where gain <> 0
),

dcg_totals as (
    select
        run_id,
        query_id,
        scheme,
        arg_max(dcg_so_far, rank) as dcg,
        count(*) filter (where gain > 0) as positive_retrieved
    from dcg_steps
    group by run_id, query_id, scheme
),

ideal_positions as (
    select * from eval_gain_ideal
),

ideal as (
    select
        query_id,
        scheme,
        position,
        gain,
        lead(gain) over (partition by query_id, scheme order by position) as next_gain,
        sum(gain / log2(cast(position + 1 as double))) over (
            partition by query_id, scheme order by position rows between unbounded preceding and current row
        ) as idcg_so_far
    from ideal_positions
),

ideal_totals as (
    select
        query_id,
        scheme,
        max(position) as nrel,
        arg_max(idcg_so_far, position) as idcg
    from ideal
    group by query_id, scheme
),

evaluated as (
    -- every (run, query, measure) to score, with the whole-ranking totals
    select
        q.run_id,
        q.query_id,
        q.num_ret,
        q.num_rel,
        m.measure,
        m.family,
        m.k,
        m.scheme,
        coalesce(d.dcg, 0.0) as dcg,
        coalesce(d.positive_retrieved, 0) as positive_retrieved,
        coalesce(i.nrel, 0) as nrel,
        coalesce(i.idcg, 0.0) as idcg
    from eval_run_queries as q
    cross join measures as m
    left join dcg_totals as d
        on d.run_id = q.run_id
       and d.query_id = q.query_id
       and d.scheme = m.scheme
    left join ideal_totals as i
        on i.query_id = q.query_id
       and i.scheme = m.scheme
),

ndcg_values as (
    select
        run_id,
        query_id,
        measure,
        coalesce(dcg / nullif(idcg, 0.0), 0.0) as value
    from evaluated
    where family = 'ndcg'
),

cut_dcg as (
    select
        e.run_id,
        e.query_id,
        e.measure,
        arg_max(d.dcg_so_far, d.rank) as dcg_at_k
    from evaluated as e
    inner join dcg_steps as d
        on d.run_id = e.run_id
       and d.query_id = e.query_id
       and d.scheme = e.scheme
       and d.rank <= e.k
    where e.family = 'ndcg_cut'
    group by e.run_id, e.query_id, e.measure
),

cut_idcg as (
    select
        e.run_id,
        e.query_id,
        e.measure,
        arg_max(i.idcg_so_far, i.position) as idcg_at_k
    from evaluated as e
    inner join ideal as i
        on i.query_id = e.query_id
       and i.scheme = e.scheme
       and i.position <= e.k
    where e.family = 'ndcg_cut'
    group by e.run_id, e.query_id, e.measure
),

ndcg_cut_values as (
    select
        e.run_id,
        e.query_id,
        e.measure,
        coalesce(d.dcg_at_k / nullif(i.idcg_at_k, 0.0), 0.0) as value
    from evaluated as e
    left join cut_dcg as d
        on d.run_id = e.run_id
       and d.query_id = e.query_id
       and d.measure = e.measure
    left join cut_idcg as i
        on i.run_id = e.run_id
       and i.query_id = e.query_id
       and i.measure = e.measure
    where e.family = 'ndcg_cut'
),

rel_terms as (
    -- ndcg_rel: at each retrieved document with gain > 0, DCG so far over the ideal DCG so far
    select
        e.run_id,
        e.query_id,
        e.measure,
        sum(d.dcg_so_far / nullif(i.idcg_so_far, 0.0) order by d.rank) as term_sum
    from evaluated as e
    inner join dcg_steps as d
        on d.run_id = e.run_id
       and d.query_id = e.query_id
       and d.scheme = e.scheme
       and d.gain > 0
    inner join ideal as i
        on i.query_id = e.query_id
       and i.scheme = e.scheme
       and i.position = least(d.rank, e.nrel)
    where e.family = 'ndcg_rel'
    group by e.run_id, e.query_id, e.measure
),

ndcg_rel_sums as (
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
    where e.family = 'ndcg_rel'
),

ndcg_rel_values as (
    select
        run_id,
        query_id,
        measure,
        case when rel_sum > 0 then rel_sum / cast(nrel as double) else 0.0 end as value
    from ndcg_rel_sums
),

change_points as (
    -- Rndcg: ideal positions after which the ideal gain changes (always the last one)
    select
        e.run_id,
        e.query_id,
        e.measure,
        e.scheme,
        i.position,
        i.idcg_so_far
    from evaluated as e
    inner join ideal as i
        on i.query_id = e.query_id
       and i.scheme = e.scheme
       and (i.next_gain is null or i.next_gain <> i.gain)
    where e.family = 'Rndcg'
),

change_terms as (
    select
        c.run_id,
        c.query_id,
        c.measure,
        c.position,
        coalesce(arg_max(d.dcg_so_far, d.rank), 0.0) / c.idcg_so_far as term
    from change_points as c
    left join dcg_steps as d
        on d.run_id = c.run_id
       and d.query_id = c.query_id
       and d.scheme = c.scheme
       and d.rank <= c.position
    group by c.run_id, c.query_id, c.measure, c.position, c.idcg_so_far
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
    where e.family = 'Rndcg'
),

rndcg_values as (
    select
        run_id,
        query_id,
        measure,
        case
            when num_rel = 0 then 0.0
            -- no ideal gain > 0 while R > 0 (gain map or -l 0): trec_eval divides 0 by 0
            when term_count = 0 then cast('nan' as double)
            else term_sum / term_count
        end as value
    from rndcg_sums
),

all_values as (
    select * from ndcg_values
    union all
    select * from ndcg_cut_values
    union all
    select * from ndcg_rel_values
    union all
    select * from rndcg_values
),

final as (
    select
        run_id,
        query_id,
        measure,
        value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from all_values
)

select * from final
