-- eval_gains: the gain schemes of the gain-based measures under evaluation, the gain of every
-- retrieved judged document and every query's ideal ranking under each scheme.
-- Grain: eval_gain_schemes one row per gain measure; eval_gain_judged one row per run x query x
-- scheme x retrieved judged doc with a nonzero gain; eval_gain_ideal one row per query x scheme x
-- ideal position.
-- Inputs: eval_judged, eval_qrels, eval_run_queries, eval_params (measure, family, has_gains) of
-- $measures (the nDCG families' and G's), eval_gain_order (each scheme's table of gains in the
-- order trec_eval sorts it, for each number of grade levels a query has: written by
-- warehouse/evaluation/gain_order.py from the grade=gain pairs).
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
-- other one shares the scheme '' (grades as gains), whose table is in gain order.
drop table if exists eval_gain_schemes;

create temp table eval_gain_schemes as
select
    measure,
    case when family <> 'ndcg_cut' and has_gains then measure else '' end as scheme
from eval_params
where measure in (select unnest($measures));

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_gain_schemes;

drop table if exists eval_gain_judged;

create temp table eval_gain_judged as
with schemes as (
    select distinct scheme from eval_gain_schemes
),

query_levels as (
    -- the grade levels of each query's table: its highest judged grade + 1 (none: 0)
    select
        query_id,
        max(cast(grade as bigint)) + 1 as levels
    from eval_qrels
    where grade >= 0
    group by query_id
),

grade_gains as (
    -- the gain of each grade: the first entry of the grade in the sorted table
    select
        scheme,
        levels,
        grade,
        gain
    from (
        select
            scheme,
            levels,
            grade,
            gain,
            row_number() over (partition by scheme, levels, grade order by position) as nth_of_grade
        from eval_gain_order
    ) as entries
    where nth_of_grade = 1
),

judged_gains as (
    select
        j.run_id,
        j.query_id,
        s.scheme,
        j.rank,
        coalesce(g.gain, 0.0) as gain
    from eval_judged as j
    cross join schemes as s
    left join query_levels as l
        on l.query_id = j.query_id
    left join grade_gains as g
        on g.scheme = s.scheme
       and g.levels = coalesce(l.levels, 0)
       and g.grade = case when j.grade < 0 then -2 else j.grade end
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

evaluated_qrels as (
    select
        query_id,
        doc_id,
        grade
    from eval_qrels
    where grade >= 0
      and query_id in (select query_id from eval_run_queries)
),

query_levels as (
    select
        query_id,
        max(cast(grade as bigint)) + 1 as levels
    from evaluated_qrels
    group by query_id
),

table_ends as (
    -- the gain at the end of each table, where the ideal starts
    select
        o.scheme,
        o.levels,
        o.gain as end_gain
    from eval_gain_order as o
    inner join (
        select
            scheme,
            levels,
            max(position) as last_position
        from eval_gain_order
        group by scheme, levels
    ) as ends
        on ends.scheme = o.scheme
       and ends.levels = o.levels
       and ends.last_position = o.position
),

counted_entries as (
    -- the entries of each query's table that hold some of its judged documents
    select distinct
        q.query_id,
        o.scheme,
        o.levels,
        o.position,
        o.grade,
        o.gain
    from evaluated_qrels as q
    inner join query_levels as l
        on l.query_id = q.query_id
    inner join eval_gain_order as o
        on o.levels = l.levels
       and o.grade = q.grade
       and o.counted
    inner join schemes as s
        on s.scheme = o.scheme
),

walk_stops as (
    -- where each query's walk from the table's end stops: the last entry with documents whose
    -- gain is not > 0 (none: the walk takes every entry)
    select
        query_id,
        scheme,
        max(position) as stop_position
    from counted_entries
    where gain <= 0
    group by query_id, scheme
),

ideal_entries as (
    select
        c.query_id,
        c.scheme,
        c.position,
        c.grade,
        c.gain
    from counted_entries as c
    inner join table_ends as e
        on e.scheme = c.scheme
       and e.levels = c.levels
    left join walk_stops as w
        on w.query_id = c.query_id
       and w.scheme = c.scheme
    where e.end_gain > 0
      and (w.stop_position is null or c.position > w.stop_position)
),

final as (
    select
        q.query_id,
        i.scheme,
        i.gain,
        row_number() over (partition by q.query_id, i.scheme order by i.position desc, q.doc_id) as position
    from evaluated_qrels as q
    inner join ideal_entries as i
        on i.query_id = q.query_id
       and i.grade = q.grade
)

select * from final;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_gain_ideal
