-- eval per-query: the stored per-query values of the requested runs and measures.
-- Grain: one row per run x query x requested measure.
-- Inputs: scores, runs; $wanted, $run_ids (as summary.sql).
-- Queries sort as trec_eval prints them (-q): by query id in byte order.
with wanted as (
    select unnest($wanted, recursive := true)
),

run_order as (
    select
        unnest($run_ids) as run_id,
        generate_subscripts($run_ids, 1) as run_position
),

final as (
    select
        r.name as run,
        s.query_id as query,
        w.measure,
        s.value
    from scores as s
    inner join wanted as w
        on w.evaluation_id = s.evaluation_id
       and w.stored = s.measure
    inner join run_order as o on o.run_id = s.run_id
    inner join runs as r on r.run_id = s.run_id
    order by o.run_position, s.query_id, w.position
)

select * from final
