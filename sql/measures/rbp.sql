-- rank-biased precision: rbp and rbp_resid (Moffat and Zobel 2008), trec_eval 10.0's m_rbp and
-- m_rbp_resid (not in 9.0.8).
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_judged (judged retrieved documents and their ranks), eval_qrels (the grades of the
-- query), eval_run_queries (num_ret = n), eval_params (measure, family, x, has_gains) of
-- $measures (x is rbp's persistence p, 0.9 unless rbp.p=0.95), eval_param_gains (rbp.1=3,2=9's
-- pairs: measure, position, grade, gain).
-- trec_eval:
--   rbp = (1 - p) * sum over retrieved documents at rank r of gain * p^(r-1). Gains are the
--   grades unless rbp.1=3,2=9 maps them; they are then normalised per query: with mn = min(0,
--   every gain) and mx = max(0, every gain), taken over the mapped grades and the grades 0 .. the
--   highest judged grade of the query, every gain becomes (gain - mn) / (mx - mn) when mn < 0 or
--   mx > 1 (grades 0..3 -> grade / 3). Unjudged documents gain 0, negative grades too unless
--   level -2 is mapped. (trec_eval leaves mn and mx uninitialised; its builds behave as 0.)
--   rbp_resid: 0 when every retrieved document is judged with a grade >= 0; else
--   p^n + (1 - p) * sum of p^(r-1) over the unjudged (or negatively graded) ones, p = 0.9 fixed.
--   Since (1 - p) * sum over all n ranks of p^(r-1) = 1 - p^n, that is
--   1 - (1 - p) * sum of p^(r-1) over the judged ranks, which reads only judged documents.
-- -l plays no part in either.
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure, family, x, has_gains
    from eval_params
    where measure in (select unnest($measures))
),

rbp_measures as (
    select measure, x as p, has_gains
    from params
    where family = 'rbp'
),

gain_pairs as (
    select
        g.measure,
        g.grade,
        g.gain,
        -- trec_eval looks up the first pair given for a grade
        row_number() over (partition by g.measure, g.grade order by g.position) as nth_for_grade
    from eval_param_gains as g
    inner join rbp_measures as m
        on m.measure = g.measure
    where m.has_gains
),

mapped_gains as (
    select
        measure,
        grade,
        gain
    from gain_pairs
    where nth_for_grade = 1
),

query_levels as (
    -- trec_eval's gain table has an entry for each grade 0 .. the highest grade >= 0 judged
    -- (bigint: a grade of 2147483647 has neighbours)
    select
        query_id,
        cast(max(grade) as bigint) as top_grade
    from eval_qrels
    where grade >= 0
      and query_id in (select query_id from eval_run_queries)
    group by query_id
),

grade_candidates as (
    -- the grades 0 .. top_grade no pair maps gain their own value, and only the lowest and highest
    -- of them reach gain_bounds: both are among 0, top_grade and the neighbours of the mapped
    -- grades, so those are listed instead of every grade (2^31 rows for a grade of 2147483647)
    select l.query_id, m.measure, cast(0 as bigint) as grade, l.top_grade
    from query_levels as l
    cross join rbp_measures as m
    union all
    select l.query_id, m.measure, l.top_grade as grade, l.top_grade
    from query_levels as l
    cross join rbp_measures as m
    union all
    select l.query_id, g.measure, cast(g.grade as bigint) + s.step as grade, l.top_grade
    from query_levels as l
    cross join mapped_gains as g
    cross join (select -1 as step union all select 1 as step) as s
),

default_gains as (
    select distinct
        query_id,
        measure,
        grade
    from grade_candidates
    where grade between 0 and top_grade
),

gain_entries as (
    select d.query_id, d.measure, cast(d.grade as double) as gain
    from default_gains as d
    where not exists (
        select 1 from mapped_gains as g where g.measure = d.measure and g.grade = d.grade
    )
    union all
    select l.query_id, g.measure, g.gain
    from query_levels as l
    inner join gain_pairs as g
        on true
),

gain_bounds as (
    select
        query_id,
        measure,
        least(0.0, min(gain)) as min_gain,
        greatest(0.0, max(gain)) as max_gain
    from gain_entries
    group by query_id, measure
),

judged_gains as (
    select
        j.run_id,
        j.query_id,
        m.measure,
        m.p,
        j.rank,
        coalesce(g.gain, case when j.grade >= 0 then cast(j.grade as double) end) as gain
    from eval_judged as j
    cross join rbp_measures as m
    left join mapped_gains as g
        on g.measure = m.measure
       and g.grade = case when j.grade < 0 then -2 else j.grade end
),

rbp_sums as (
    select
        j.run_id,
        j.query_id,
        j.measure,
        sum(
            case
                when b.min_gain < 0 or b.max_gain > 1 then (j.gain - b.min_gain) / (b.max_gain - b.min_gain)
                else j.gain
            end * case
                -- p^(r-1) below e^-700 adds nothing a double holds (PostgreSQL's power() refuses to underflow)
                when j.p <= 0 then pow(j.p, cast(j.rank - 1 as double))
                when (j.rank - 1) * ln(j.p) < -700 then 0.0
                else pow(j.p, cast(j.rank - 1 as double))
            end
            order by j.rank
        ) as weighted_gain
    from judged_gains as j
    inner join gain_bounds as b
        on b.query_id = j.query_id
       and b.measure = j.measure
    -- a document whose level has no gain entry (unjudged, unmapped negative grade) gains 0
    where j.gain is not null
    group by j.run_id, j.query_id, j.measure
),

rbp_values as (
    select
        q.run_id,
        q.query_id,
        m.measure,
        (1.0 - m.p) * coalesce(s.weighted_gain, 0.0) as value
    from eval_run_queries as q
    cross join rbp_measures as m
    left join rbp_sums as s
        on s.run_id = q.run_id
       and s.query_id = q.query_id
       and s.measure = m.measure
),

judged_weights as (
    select
        run_id,
        query_id,
        count(*) as judged_count,
        sum(case
            when (rank - 1) * ln(0.9) < -700 then 0.0  -- as in rbp_sums
            else pow(0.9, cast(rank - 1 as double))
        end order by rank) as judged_weight
    from eval_judged
    where grade >= 0
    group by run_id, query_id
),

resid_values as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        case
            when q.num_ret > coalesce(w.judged_count, 0) then 1.0 - (1.0 - 0.9) * coalesce(w.judged_weight, 0.0)
            else 0.0
        end as value
    from eval_run_queries as q
    cross join params as p
    left join judged_weights as w
        on w.run_id = q.run_id
       and w.query_id = q.query_id
    where p.family = 'rbp_resid'
),

all_values as (
    select * from rbp_values
    union all
    select * from resid_values
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
