-- history: each system's runs in time order, with the primary measure and the best so far.
-- Grain: one row per run with a stored score for the measure, ordered by system, then run date,
-- then run name (byte order), which is also the order "the run before" follows.
-- Inputs: runs, scores, measures (aggregate kind); $evaluation_id, $stored (the measure's stored
-- name), $systems (names to keep; empty keeps every system).
-- trec_eval: value is trec_summary (schema 005), the summary eval/summary.sql prints for the
-- measure (mean over the evaluated queries; sum for counts; geometric mean for gm_map, gm_bpref).
-- run_date is the run file's creation (or modification) time recorded at ingest.
with aggregated as (
    select
        s.run_id,
        count(*) as queries,
        trec_summary(m.aggregate, s.value, s.query_id) as value
    from scores as s
    inner join measures as m on m.measure = s.measure
    where s.evaluation_id = $evaluation_id
      and s.measure = $stored
    group by s.run_id, m.aggregate
),

dated as (
    select
        coalesce(r.system, r.name) as system,
        r.run_id,
        r.name as run,
        r.description,
        r.file_created_at as run_date,
        a.value,
        a.queries
    from runs as r
    inner join aggregated as a on a.run_id = r.run_id
    where len($systems) = 0
       or coalesce(r.system, r.name) in (select unnest($systems))
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
            partition by system order by run_date, run rows between unbounded preceding and current row
        ) as best_so_far,
        lag(run_id) over (partition by system order by run_date, run) as previous_run_id,
        row_number() over (partition by system order by run_date, run) as position
    from dated
    order by system, run_date, run
)

select * from final
