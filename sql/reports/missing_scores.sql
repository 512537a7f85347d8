-- missing_scores: the runs and measures of a report whose scores are not stored yet, or were
-- computed over no query (Warehouse.evaluate then says why), so a report of a thousand runs asks
-- Warehouse.evaluate only about those instead of every run: lacking_scores.sql's rule, composed
-- here, over the runs bound as $run_ids.
-- Grain: one row per run of $run_ids x measure of report_wanted without a usable `evaluated` row.
-- Inputs: evaluated; report_wanted (temporary: evaluation_id, stored, measure, position), $run_ids.
-- trec_eval: none (bookkeeping; Warehouse.evaluate computes the scores).
with wanted_runs as (
    select
        run_id,
        run_id as run_position
    from (select unnest($run_ids) as run_id) as ids
)

select
    m.run_id,
    m.measure
from "reports/lacking_scores.sql" as m
order by m.run_id, m.position
