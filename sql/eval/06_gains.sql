-- eval_gains: the gain schemes of the gain-based measures under evaluation, the gain of every
-- retrieved judged document and every query's ideal ranking under each scheme.
-- Grain: eval_gain_schemes one row per gain measure; eval_gain_judged one row per run x query x
-- scheme x retrieved judged doc with a nonzero gain; eval_gain_ideal one row per query x scheme x
-- ideal position.
-- Inputs: eval_judged, eval_qrels, eval_params (measure, gain_scheme) of $measures (the nDCG
-- families' and G's), eval_gain_query_levels and eval_gain_query_grades (sql/eval/gain_levels.sql:
-- each evaluated query's number of grade levels and judged grades), eval_gain_order (each scheme's table of gains in the order trec_eval
-- sorts it, for each number of levels: written by warehouse/evaluation/gain_order.py from the
-- grade=gain pairs).
-- Run by warehouse/evaluation/evaluator.py before the nDCG families (through sql/eval/07_dcg.sql) and
-- sql/measures/gain.sql, which read these tables.
-- trec_eval (m_ndcg.c, m_ndcg_rel.c, m_Rndcg.c, m_G.c): a query's table of gains holds the
-- measure's grade=gain pairs (ndcg.1=3,2=9) and every grade from 0 to the query's highest judged
-- grade that no pair names, with the grade as its gain, sorted by gain as qsort leaves it (see
-- gain_order.py: gains less than 1 apart compare equal). A retrieved document's gain is the one of
-- the first entry of its grade in that order (a negative grade looks up grade -2), 0 when no entry
-- has it; an unjudged document gets 0. The ideal ranking walks the table from its end: each entry
-- contributes the query's judged documents of its grade (retrieved or not), and the walk stops at
-- the first entry with documents whose gain is not > 0, or at once when the gain at the table's
-- end is not > 0. ndcg_cut ignores gain maps. A measure with a gain map is its own scheme; every
-- other one shares the scheme '' (grades as gains), whose table is in gain order (eval_params'
-- gain_scheme, from warehouse/evaluation/evaluator.py's measure_params).
drop table if exists eval_gain_schemes;

create temp table eval_gain_schemes as
select
    measure,
    gain_scheme as scheme
from eval_params
where measure in (select unnest($measures));

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_gain_schemes;

drop table if exists eval_gain_judged;

create temp table eval_gain_judged as
with schemes as (
    select distinct scheme from eval_gain_schemes
),

judged_gains as (
    -- a document's gain: the first entry of its grade in its query's sorted table (none: 0)
    select
        j.run_id,
        j.query_id,
        s.scheme,
        j.rank,
        coalesce(o.gain, 0.0) as gain
    from eval_judged as j
    cross join schemes as s
    left join eval_gain_query_levels as l
        on l.query_id = j.query_id
    left join eval_gain_order as o
        on o.scheme = s.scheme
       and o.levels = coalesce(l.levels, 0)
       and o.grade = case when j.grade < 0 then -2 else j.grade end
       and o.first_of_grade
),

final as (
    select * from judged_gains
    where gain <> 0
)

select * from final;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_gain_judged;

drop table if exists eval_gain_ideal;

create temp table eval_gain_ideal as
with schemes as (
    select distinct scheme from eval_gain_schemes
),

counted_entries as (
    -- the entries of each query's table that hold some of its judged documents (in a table whose
    -- end gain is > 0: the others have no ideal ranking)
    select
        g.query_id,
        o.scheme,
        o.position,
        o.grade,
        o.gain
    from eval_gain_query_grades as g
    inner join eval_gain_order as o
        on o.levels = g.levels
       and o.grade = g.grade
       and o.counted
       and o.walked
    inner join schemes as s
        on s.scheme = o.scheme
),

walked_entries as (
    -- where each query's walk from the table's end stops: the last entry with documents whose
    -- gain is not > 0 (none: the walk takes every entry)
    select
        query_id,
        scheme,
        position,
        grade,
        gain,
        max(case when gain <= 0 then position end) over (partition by query_id, scheme) as stop_position
    from counted_entries
),

ideal_entries as (
    select
        query_id,
        scheme,
        position,
        grade,
        gain
    from walked_entries
    where stop_position is null or position > stop_position
),

final as (
    select
        q.query_id,
        i.scheme,
        i.gain,
        row_number() over (partition by q.query_id, i.scheme order by i.position desc) as position
    from eval_qrels as q
    inner join ideal_entries as i
        on i.query_id = q.query_id
       and i.grade = q.grade
)

select * from final;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_gain_ideal
