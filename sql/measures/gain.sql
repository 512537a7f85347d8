-- cumulative gain without position discount: binG and G (Kekalainen and Jarvelin), trec_eval's
-- m_binG and m_G.
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_judged (rel_so_far = relevant documents at or above each rank), eval_gain_schemes,
-- eval_gain_judged, eval_gain_ideal (sql/eval/06_gains.sql), eval_run_queries (num_rel = R),
-- eval_params (measure, family) of $measures.
-- trec_eval:
--   binG: each retrieved relevant document (grade >= level) adds 1 / log2(2 + the documents above
--   it that are not relevant, unjudged ones included), i.e. 1 / log2(2 + rank - rel_so_far); the
--   sum is divided by R (0 when no relevant document was retrieved).
--   G: gains as in ndcg (the grade, unless G.1=3,2=9 maps it; negative grades and unjudged
--   documents 0). The ideal ranking is sql/eval/06_gains.sql's (by gain descending, in the order
--   trec_eval sorts its gains), and its positions beyond the end have gain 0. With sr(r) = the
--   gains of ranks 1..r and sc(r) = the sum over ideal positions 1..r of max(ideal gain, 1), every
--   retrieved document with gain <> 0 at rank r adds gain / log2(2 + sc(r) - sr(r)); the sum is
--   divided by the total ideal gain (0 when that is 0). -l changes binG, not G. On binary
--   judgments G equals binG.
-- log2(x) is written ln(x) / ln(2), as in sql/eval/07_dcg.sql.
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure, family
    from eval_params
    where measure in (select unnest($measures))
),

bin_sums as (
    select
        run_id,
        query_id,
        sum(1.0 / (ln(cast(2 + rank - rel_so_far as double)) / ln(cast(2 as double))) order by rank) as gain_sum
    from eval_judged
    where is_rel
    group by run_id, query_id
),

bin_g_values as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        coalesce(b.gain_sum / nullif(cast(q.num_rel as double), 0.0), 0.0) as value
    from eval_run_queries as q
    cross join params as p
    left join bin_sums as b
        on b.run_id = q.run_id
       and b.query_id = q.query_id
    where p.family = 'binG'
),

g_measures as (
    select
        p.measure,
        s.scheme
    from params as p
    inner join eval_gain_schemes as s
        on s.measure = p.measure
    where p.family = 'G'
),

judged_gains as (
    -- the G measures' schemes only: the other schemes' gains are not G's to divide
    select * from eval_gain_judged
    where scheme in (select scheme from g_measures)
),

gain_steps as (
    select
        run_id,
        query_id,
        scheme,
        rank,
        gain,
        sum(gain) over (
            partition by run_id, query_id, scheme order by rank rows between unbounded preceding and current row
        ) as gain_so_far
    from judged_gains
    where gain <> 0
),

ideal_positions as (
    select * from eval_gain_ideal
    where scheme in (select scheme from g_measures)
),

ideal as (
    select
        query_id,
        scheme,
        position,
        sum(gain) over (
            partition by query_id, scheme order by position rows between unbounded preceding and current row
        ) as ideal_so_far,
        sum(greatest(gain, 1.0)) over (
            partition by query_id, scheme order by position rows between unbounded preceding and current row
        ) as cost_so_far
    from ideal_positions
),

ideal_ends as (
    select
        query_id,
        scheme,
        max(position) as nrel
    from ideal
    group by query_id, scheme
),

ideal_totals as (
    -- positions run 1..n: the last one is the ideal's length, its running sum the total
    select
        e.query_id,
        e.scheme,
        e.nrel,
        i.ideal_so_far as ideal_gain
    from ideal_ends as e
    inner join ideal as i
        on i.query_id = e.query_id
       and i.scheme = e.scheme
       and i.position = e.nrel
),

step_positions as materialized (
    -- the ideal position each retrieved rank reads: the rank, or the ideal's end past it
    -- (materialized, so that PostgreSQL joins the ideal on it instead of filtering a join on it)
    select
        s.run_id,
        s.query_id,
        s.scheme,
        s.rank,
        s.gain,
        s.gain_so_far,
        least(s.rank, coalesce(t.nrel, 0)) as ideal_position
    from gain_steps as s
    left join ideal_totals as t
        on t.query_id = s.query_id
       and t.scheme = s.scheme
),

g_steps as (
    -- the argument of each retrieved gain's log2: 2 + sc(r) - sr(r)
    select
        s.run_id,
        s.query_id,
        s.scheme,
        s.rank,
        s.gain,
        2.0 + coalesce(i.cost_so_far, 0.0) + cast(s.rank - s.ideal_position as double) - s.gain_so_far as cost_gap
    from step_positions as s
    left join ideal as i
        on i.query_id = s.query_id
       and i.scheme = s.scheme
       and i.position = s.ideal_position
),

g_sums as (
    -- a gain map whose gains trec_eval sorts out of order (sql/eval/06_gains.sql) can put more
    -- gain in the ranking than in the ideal so far: log2(1) = 0 divides to infinity, log2(0) to
    -- -0, a negative argument has no log (NaN), as in C
    select
        run_id,
        query_id,
        scheme,
        sum(
            case
                when cost_gap > 0 and cost_gap <> 1 then gain / (ln(cost_gap) / ln(cast(2 as double)))
                when cost_gap = 1 and gain > 0 then cast('inf' as double)
                when cost_gap = 1 then cast('-inf' as double)
                when cost_gap = 0 then 0.0
                else cast('nan' as double)
            end
            order by rank
        ) as gain_sum
    from g_steps
    group by run_id, query_id, scheme
),

g_values as (
    select
        q.run_id,
        q.query_id,
        m.measure,
        coalesce(g.gain_sum / nullif(t.ideal_gain, 0.0), 0.0) as value
    from eval_run_queries as q
    cross join g_measures as m
    left join g_sums as g
        on g.run_id = q.run_id
       and g.query_id = q.query_id
       and g.scheme = m.scheme
    left join ideal_totals as t
        on t.query_id = q.query_id
       and t.scheme = m.scheme
),

all_values as (
    select * from bin_g_values
    union all
    select * from g_values
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
