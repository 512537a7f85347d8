-- leaderboard_summaries: report_summaries (temporary), the summaries a served leaderboard needs
-- that score_summaries (schema 16) does not hold for the runs' current scores, computed from the
-- per-query scores: every one the first time, none once they are stored (store_summaries.sql);
-- then report_values (temporary), every summary the page reads, stored or just computed, by
-- report_wanted position: read by leaderboard_page.sql and leaderboard_ranges.sql.
-- Grain: report_summaries: one row per run of report_runs x report_wanted measure with an
-- `evaluated` row and no stored summary of the same scores (computed_at, query_count);
-- report_values: one row per run of report_runs x report_wanted position with a summary.
-- Inputs: scores, evaluated, measures (aggregate kind), score_summaries; report_wanted
-- (temporary: evaluation_id, stored, measure, position), report_runs (temporary: run_id, run_position).
-- trec_eval: value is the summary eval/summary.sql prints (the "all" line): the mean over the
-- evaluated queries, the sum for counts, the geometric mean (values floored at 1e-5) for gm_map and
-- gm_bpref, summed in query-id order; queries counts the evaluated queries.
drop table if exists report_summaries;

create temp table report_summaries as
with lacking as (
    select
        e.evaluation_id,
        e.measure,
        e.run_id,
        e.computed_at,
        e.query_count
    from evaluated as e
    inner join report_wanted as w
        on w.evaluation_id = e.evaluation_id
       and w.stored = e.measure
    inner join report_runs as o on o.run_id = e.run_id
    where not exists (
        select 1
        from score_summaries as t
        where t.evaluation_id = e.evaluation_id
          and t.measure = e.measure
          and t.run_id = e.run_id
          and t.scores_at = e.computed_at
          and t.query_count = e.query_count
    )
),

aggregated as (
    select
        l.evaluation_id,
        l.measure,
        l.run_id,
        l.computed_at,
        l.query_count,
        m.aggregate,
        count(*) as queries,
        sum(s.value order by s.query_id) as sum_value,
        exp(sum(ln(greatest(s.value, 0.00001)) order by s.query_id) / count(*)) as geo_value
    from lacking as l
    inner join scores as s
        on s.evaluation_id = l.evaluation_id
       and s.run_id = l.run_id
       and s.measure = l.measure
    inner join measures as m
        on m.measure = l.measure
    group by l.evaluation_id, l.measure, l.run_id, l.computed_at, l.query_count, m.aggregate
)

select
    evaluation_id,
    measure,
    run_id,
    computed_at as scores_at,
    query_count,
    case aggregate
        when 'sum' then sum_value
        when 'geo' then geo_value
        else sum_value / queries
    end as value,
    queries
from aggregated;

drop table if exists report_values;

create temp table report_values as
select
    t.run_id,
    w.position,
    t.queries,
    t.value
from score_summaries as t
inner join report_wanted as w
    on w.evaluation_id = t.evaluation_id
   and w.stored = t.measure
inner join report_runs as o on o.run_id = t.run_id
inner join evaluated as e
    on e.evaluation_id = t.evaluation_id
   and e.run_id = t.run_id
   and e.measure = t.measure
   and e.computed_at = t.scores_at
   and e.query_count = t.query_count
union all
select
    r.run_id,
    w.position,
    r.queries,
    r.value
from report_summaries as r
inner join report_wanted as w
    on w.evaluation_id = r.evaluation_id
   and w.stored = r.measure;
