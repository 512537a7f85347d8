-- leaderboard_summaries: report_values (temporary), every summary a served leaderboard page reads,
-- by report_wanted position: read by leaderboard_page.sql, leaderboard_ranges.sql and
-- family_p_values.sql; and report_summaries (temporary), those score_summaries (schema 16) does not
-- hold for the runs' current scores, computed from the per-query scores: every one the first time,
-- none once they are stored (store_summaries.sql).
-- One pass over the runs' `evaluated` rows, each joined to its stored summary (a hash join over
-- 60,000 rows for 10,000 runs x 6 measures, no per-row probe); only the rows it lacks are summed.
-- Grain: report_values: one row per run of report_runs x report_wanted position with an
-- `evaluated` row and a summary (stored or just computed), with that row's key (evaluation_id,
-- measure: its stored name, scores_at, query_count); report_summaries: one row per report_values
-- row whose summary was not stored (computed_at, query_count).
-- Inputs: scores, evaluated, measures (aggregate kind), score_summaries; report_wanted
-- (temporary: evaluation_id, stored, measure, position), report_runs (temporary: run_id, run_position).
-- trec_eval: value is the summary eval/summary.sql prints (the "all" line), by the one summary rule
-- eval/summary_rule.sql, composed here; queries counts the evaluated queries.
drop table if exists report_values;

create temp table report_values as
select
    e.run_id,
    w.position,
    t.queries,
    t.value,
    e.evaluation_id,
    e.measure,
    e.computed_at as scores_at,
    e.query_count,
    t.run_id is null as lacking
from evaluated as e
inner join report_wanted as w
    on w.evaluation_id = e.evaluation_id
   and w.stored = e.measure
inner join report_runs as o on o.run_id = e.run_id
left join score_summaries as t
    on t.evaluation_id = e.evaluation_id
   and t.measure = e.measure
   and t.run_id = e.run_id
   and t.scores_at = e.computed_at
   and t.query_count = e.query_count;

drop table if exists report_summaries;

create temp table report_summaries as
with lacking as (
    select distinct
        evaluation_id,
        measure,
        run_id,
        scores_at as computed_at,
        query_count
    from report_values
    where lacking
),

summary_scores as (
    select
        s.run_id,
        s.evaluation_id,
        s.measure,
        0 as position,
        m.aggregate,
        s.query_id,
        s.value,
        s.numerator,
        s.denominator
    from lacking as l
    inner join scores as s
        on s.evaluation_id = l.evaluation_id
       and s.run_id = l.run_id
       and s.measure = l.measure
    inner join measures as m
        on m.measure = l.measure
)

select
    l.evaluation_id,
    l.measure,
    l.run_id,
    l.computed_at as scores_at,
    l.query_count,
    a.value,
    a.queries
from lacking as l
inner join "eval/summary_rule.sql" as a
    on a.evaluation_id = l.evaluation_id
   and a.measure = l.measure
   and a.run_id = l.run_id;

update report_values
set
    value = s.value,
    queries = s.queries
from report_summaries as s
where report_values.lacking
  and s.evaluation_id = report_values.evaluation_id
  and s.measure = report_values.measure
  and s.run_id = report_values.run_id;

-- a lacking summary with no per-query score to sum (none is computed) is no row, as a stored one
delete from report_values
where queries is null;
