-- leaderboard_ranges: for every run of a served leaderboard, its primary measure's value and its
-- lowest and highest over the orders of its tied documents: which runs are ranked (tested against
-- the baseline), and whether another tie order could move a run past any other (the page's mark).
-- Grain: one row per run of report_runs.
-- Inputs: runs; report_values (temporary: every run's summaries by report_wanted position, stored
-- in score_summaries (schema 16) or just computed: leaderboard_summaries.sql), report_runs
-- (temporary: run_id, run_position), $primary_position, $low_position, $high_position (positions
-- of report_wanted; -1: none).
-- trec_eval: each value is the summary eval/summary.sql prints (mean, sum for counts, geometric
-- mean for gm_*, summed in query-id order) rounded to 12 decimals, as leaderboard_page.sql ranks.
with final as (
    select
        r.name as run,
        round(max(case when a.position = cast($primary_position as integer) then a.value end), 12) as primary_value,
        round(max(case when a.position = cast($low_position as integer) then a.value end), 12) as low,
        round(max(case when a.position = cast($high_position as integer) then a.value end), 12) as high
    from runs as r
    inner join report_runs as o on o.run_id = r.run_id
    left join report_values as a
        on a.run_id = r.run_id
       and a.position in (cast($primary_position as integer), cast($low_position as integer),
                          cast($high_position as integer))
    group by r.name, o.run_position
    order by o.run_position
)

select * from final
