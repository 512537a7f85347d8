-- eval_gains: the gain schemes of the gain-based measures under evaluation, the gain of every
-- retrieved judged document and every query's ideal ranking under each scheme.
-- Grain: eval_gain_schemes one row per gain measure; eval_gain_maps one row per scheme x mapped
-- grade; eval_gain_judged one row per run x query x scheme x retrieved judged doc with a nonzero
-- gain; eval_gain_ideal one row per query x scheme x ideal position (judged docs with gain > 0).
-- Inputs: eval_judged, eval_qrels, eval_run_queries, eval_params (measure, family, has_gains) of
-- $measures (the nDCG families' and G's), eval_param_gains (their grade=gain pairs: measure,
-- position, grade, gain).
-- Run by warehouse/evaluation/evaluator.py before the nDCG families (through sql/eval/07_dcg.sql) and
-- sql/measures/gain.sql, which read these tables.
-- trec_eval (gain_init.c): the gain of a grade is the grade itself unless the measure maps it
-- (ndcg.1=3,2=9 binds the pairs (1, 3) and (2, 9); the first pair given for a grade wins); a
-- negative grade looks up level -2 and gets 0 unless mapped; an unjudged document gets 0.
-- ndcg_cut ignores gain maps. A measure with a gain map is its own scheme; every other one shares
-- the scheme '' (grades as gains). The ideal ranking is every judged document of the query
-- (retrieved or not) with gain > 0, by gain descending.
drop table if exists eval_gain_schemes;

create temp table eval_gain_schemes as
select
    measure,
    case when family <> 'ndcg_cut' and has_gains then measure else '' end as scheme
from eval_params
where measure in (select unnest($measures));

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_gain_schemes;

drop table if exists eval_gain_maps;

create temp table eval_gain_maps as
with gain_pairs as (
    -- the pairs of the measures that are schemes of their own
    select
        s.scheme,
        g.grade,
        g.gain,
        -- trec_eval uses the first pair given for a grade
        row_number() over (partition by s.scheme, g.grade order by g.position) as nth_for_grade
    from eval_param_gains as g
    inner join eval_gain_schemes as s
        on s.scheme = g.measure
),

final as (
    select
        scheme,
        grade,
        gain
    from gain_pairs
    where nth_for_grade = 1
)

select * from final;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_gain_maps;

drop table if exists eval_gain_judged;

create temp table eval_gain_judged as
with schemes as (
    select distinct scheme from eval_gain_schemes
),

final as (
    select
        j.run_id,
        j.query_id,
        s.scheme,
        j.rank,
        coalesce(g.gain, case when j.grade >= 0 then cast(j.grade as double) else 0.0 end) as gain
    from eval_judged as j
    cross join schemes as s
    left join eval_gain_maps as g
        on g.scheme = s.scheme
       and g.grade = case when j.grade < 0 then -2 else j.grade end
)

select * from final
where gain <> 0;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_gain_judged;

drop table if exists eval_gain_ideal;

create temp table eval_gain_ideal as
with schemes as (
    select distinct scheme from eval_gain_schemes
),

qrels_gains as (
    select
        q.query_id,
        s.scheme,
        coalesce(g.gain, cast(q.grade as double)) as gain
    from eval_qrels as q
    cross join schemes as s
    left join eval_gain_maps as g
        on g.scheme = s.scheme
       and g.grade = q.grade
    where q.grade >= 0
      and q.query_id in (select query_id from eval_run_queries)
),

final as (
    select
        query_id,
        scheme,
        gain,
        row_number() over (partition by query_id, scheme order by gain desc) as position
    from qrels_gains
    where gain > 0
)

select * from final;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_gain_ideal
