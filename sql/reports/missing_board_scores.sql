-- missing_board_scores: missing_scores.sql over a served leaderboard's runs as report_runs holds
-- them (a table loaded once per page, joined; not 10,000 run ids bound as an array): the runs and
-- measures whose scores are not stored yet, or were computed over no query (Warehouse.evaluate
-- then says why), so the page asks Warehouse.evaluate only about those: lacking_scores.sql's rule,
-- composed here.
-- Grain: one row per run of report_runs x measure of report_wanted without a usable `evaluated` row.
-- Inputs: evaluated; report_wanted (temporary: evaluation_id, stored, measure, position),
-- report_runs (temporary: run_id, run_position).
-- trec_eval: none (bookkeeping; Warehouse.evaluate computes the scores).
with wanted_runs as (
    select
        run_id,
        run_position
    from report_runs
)

select
    m.run_id,
    m.measure
from "reports/lacking_scores.sql" as m
order by m.run_position, m.position
