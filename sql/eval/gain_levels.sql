-- gain_levels: how many grade levels each evaluated query's table of gains has (its highest
-- judged grade + 1), and which grades it judges, kept for sql/eval/06_gains.sql; returns each number
-- of levels once, with the grades judged by the queries whose tables are too long to hold every
-- grade ($full_table_levels: warehouse/evaluation/gain_order.py's FULL_TABLE_LEVELS).
-- Grain: eval_gain_query_levels one row per query judging a grade >= 0 (the others have 0
-- levels); eval_gain_query_grades one row per query x judged grade >= 0; the result one row per
-- number of levels (grade null), or per (number of levels, judged grade) above $full_table_levels.
-- Inputs: eval_qrels, $full_table_levels (every query of the qrels is kept: the ones not evaluated
-- are never joined).
-- trec_eval: a gain measure's table of gains holds the grades 0 .. highest - 1 besides its
-- grade=gain pairs; gain_order.py sorts one table per number of levels. Grades are read as 64-bit
-- numbers: a grade of 2^31 - 1 makes 2^31 levels.
drop table if exists eval_gain_query_levels;

create temp table eval_gain_query_levels as
select
    query_id,
    max(cast(grade as bigint)) + 1 as levels
from eval_qrels
where grade >= 0
group by query_id;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_gain_query_levels;

drop table if exists eval_gain_query_grades;

create temp table eval_gain_query_grades as
with judged_grades as (
    select
        query_id,
        grade
    from eval_qrels
    where grade >= 0
    group by query_id, grade
),

final as (
    select
        g.query_id,
        cast(g.grade as bigint) as grade,
        l.levels
    from judged_grades as g
    inner join eval_gain_query_levels as l
        on l.query_id = g.query_id
)

select * from final;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_gain_query_grades;

select distinct
    levels,
    case when levels > $full_table_levels then grade end as grade
from eval_gain_query_grades
