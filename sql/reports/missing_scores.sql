-- missing_scores: the runs and measures of a report whose scores are not stored yet, or were
-- computed over no query (Warehouse.evaluate then says why), so a report of a thousand runs asks
-- Warehouse.evaluate only about those instead of every run.
-- Grain: one row per run of $run_ids x measure of report_wanted without a usable `evaluated` row.
-- Inputs: evaluated; report_wanted (temporary: evaluation_id, stored, measure, position), $run_ids.
-- trec_eval: none (bookkeeping; Warehouse.evaluate computes the scores).
with wanted_runs as (
    select unnest($run_ids) as run_id
)

select
    r.run_id,
    w.measure
from wanted_runs as r
cross join report_wanted as w
left join evaluated as e
    on e.evaluation_id = w.evaluation_id
   and e.run_id = r.run_id
   and e.measure = w.stored
where e.run_id is null
   or e.query_count = 0
order by r.run_id, w.position
