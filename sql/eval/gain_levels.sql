-- gain_levels: how many grade levels the evaluated queries' tables of gains have (the query's
-- highest judged grade + 1; 0 where it has no grade >= 0), with the grades those queries judge.
-- Grain: one row per distinct (number of levels, judged grade >= 0); grade null for the queries
-- that judge none.
-- Inputs: eval_qrels, eval_run_queries.
-- trec_eval: a gain measure's table of gains holds the grades 0 .. highest - 1 besides its
-- grade=gain pairs; warehouse/evaluation/gain_order.py sorts one table per number of levels, which
-- sql/eval/06_gains.sql reads. Grades are read as 64-bit numbers: a grade of 2^31 - 1 has 2^31 levels.
with evaluated_queries as (
    select distinct query_id from eval_run_queries
),

evaluated_grades as (
    select distinct
        query_id,
        cast(grade as bigint) as grade
    from eval_qrels
    where grade >= 0
      and query_id in (select query_id from evaluated_queries)
),

query_levels as (
    select
        query_id,
        max(grade) + 1 as levels
    from evaluated_grades
    group by query_id
),

final as (
    select distinct
        coalesce(l.levels, 0) as levels,
        g.grade
    from evaluated_queries as q
    left join query_levels as l
        on l.query_id = q.query_id
    left join evaluated_grades as g
        on g.query_id = q.query_id
)

select * from final
