-- lacking_scores: the rule of which scores a report must ask Warehouse.evaluate for: a run x
-- measure whose scores are not stored yet, or were computed over no query (Warehouse.evaluate then
-- says why). Composed (warehouse/resources.py read_sql) by missing_scores.sql (runs bound as
-- $run_ids) and missing_board_scores.sql (a served leaderboard's runs, report_runs), which order it.
-- Grain: one row per run of wanted_runs x measure of report_wanted without a usable `evaluated` row.
-- Inputs: evaluated; report_wanted (temporary: evaluation_id, stored, measure, position);
-- wanted_runs, a CTE of the composing query (run_id, run_position).
-- trec_eval: none (bookkeeping; Warehouse.evaluate computes the scores).
select
    r.run_id,
    r.run_position,
    w.measure,
    w.position
from wanted_runs as r
cross join report_wanted as w
left join evaluated as e
    on e.evaluation_id = w.evaluation_id
   and e.run_id = r.run_id
   and e.measure = w.stored
where e.run_id is null
   or e.query_count = 0
