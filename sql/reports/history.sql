-- history: each system's runs in time order, with the primary measure and the best so far.
-- Grain: one row per run with a stored score for the measure, ordered by system, then run date,
-- then ingest order (ingested_at, then run_id: the runs of one batch), which is also the order "the
-- run before" follows: runs of one date keep their order when one is renamed.
-- Inputs: runs, scores, measures (aggregate kind); report_runs (temporary: run_id, run_position:
-- the runs chosen, warehouse/store/catalog.py select_runs); $evaluation_id, $stored (the measure's stored
-- name).
-- trec_eval: value is the summary eval/summary.sql prints for the measure, by the one summary rule
-- eval/summary_rule.sql, composed here.
-- run_date is the run file's creation (or modification) time recorded at ingest.
with summary_scores as (
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
    from scores as s
    inner join measures as m on m.measure = s.measure
    where s.evaluation_id = $evaluation_id
      and s.measure = $stored
),

summarized as (
    select
        run_id,
        queries,
        value
    from "eval/summary_rule.sql" as a
),

dated as (
    select
        coalesce(r.system, r.name) as system,
        r.run_id,
        r.name as run,
        r.description,
        r.file_created_at as run_date,
        r.ingested_at,
        a.value,
        a.queries
    from runs as r
    inner join report_runs as o on o.run_id = r.run_id
    inner join summarized as a on a.run_id = r.run_id
),

final as (
    select
        system,
        run_id,
        run,
        description,
        run_date,
        value,
        queries,
        max(value) over (
            partition by system order by run_date, ingested_at, run_id rows between unbounded preceding and current row
        ) as best_so_far,
        lag(run_id) over (partition by system order by run_date, ingested_at, run_id) as previous_run_id,
        row_number() over (partition by system order by run_date, ingested_at, run_id) as position
    from dated
    order by system, run_date, ingested_at, run_id
)

select * from final
