-- eval per-query: the stored per-query values of the requested runs and measures.
-- Grain: one row per run x query x requested measure.
-- Inputs: scores, runs; eval_wanted, eval_wanted_runs (as summary.sql).
-- trec_eval: the -q lines' values, as the measure files stored them (one per query x measure).
-- Queries sort as trec_eval prints them (-q): by query id in byte order.
with final as (
    select
        r.name as run,
        s.query_id as query,
        w.measure,
        s.value
    from scores as s
    inner join eval_wanted as w
        on w.evaluation_id = s.evaluation_id
       and w.stored = s.measure
    inner join eval_wanted_runs as o on o.run_id = s.run_id
    inner join runs as r on r.run_id = s.run_id
    order by o.position, s.query_id, w.position
)

select * from final
