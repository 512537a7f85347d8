-- missing_board_scores: missing_scores.sql over a served leaderboard's runs as report_runs holds
-- them (a table loaded once per page, joined; not 10,000 run ids bound as an array): the runs and
-- measures whose scores are not stored yet, or were computed over no query (Warehouse.evaluate
-- then says why), so the page asks Warehouse.evaluate only about those.
-- Grain: one row per run of report_runs x measure of report_wanted without a usable `evaluated` row.
-- Inputs: evaluated; report_wanted (temporary: evaluation_id, stored, measure, position),
-- report_runs (temporary: run_id, run_position).
-- trec_eval: none (bookkeeping; Warehouse.evaluate computes the scores).
select
    r.run_id,
    w.measure
from report_runs as r
cross join report_wanted as w
left join evaluated as e
    on e.evaluation_id = w.evaluation_id
   and e.run_id = r.run_id
   and e.measure = w.stored
where e.run_id is null
   or e.query_count = 0
order by r.run_position, w.position
