-- leaderboard_ranges: for every run of a served leaderboard, its primary measure's value and its
-- lowest and highest over the orders of its tied documents: which runs are ranked (tested against
-- the baseline), and whether another tie order could move a run past any other (the page's mark).
-- Grain: one row per run of report_runs.
-- Inputs: runs, scores, measures (aggregate kind); report_wanted (temporary: evaluation_id, stored,
-- measure, position), report_runs (temporary: run_id, run_position), $primary_position,
-- $low_position, $high_position (positions of report_wanted; -1: none).
-- trec_eval: each value is the summary eval/summary.sql prints (mean, sum for counts, geometric
-- mean for gm_*), summed in any order and rounded to 12 decimals, as leaderboard_page.sql ranks.
with fast as (
    select
        s.run_id,
        w.position,
        m.aggregate,
        count(*) as queries,
        sum(s.value) as sum_value,
        exp(sum(ln(greatest(s.value, 0.00001))) / count(*)) as geo_value
    from scores as s
    inner join report_wanted as w
        on w.evaluation_id = s.evaluation_id
       and w.stored = s.measure
    inner join report_runs as o on o.run_id = s.run_id
    inner join measures as m
        on m.measure = s.measure
    where w.position in (cast($primary_position as integer), cast($low_position as integer),
                         cast($high_position as integer))
    group by s.run_id, w.position, m.aggregate
),

approximate as (
    select
        run_id,
        position,
        round(case aggregate
            when 'sum' then sum_value
            when 'geo' then geo_value
            else sum_value / queries
        end, 12) as value
    from fast
),

final as (
    select
        r.name as run,
        max(case when a.position = cast($primary_position as integer) then a.value end) as primary_value,
        max(case when a.position = cast($low_position as integer) then a.value end) as low,
        max(case when a.position = cast($high_position as integer) then a.value end) as high
    from runs as r
    inner join report_runs as o on o.run_id = r.run_id
    left join approximate as a on a.run_id = r.run_id
    group by r.name, o.run_position
    order by o.run_position
)

select * from final
