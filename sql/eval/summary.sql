-- eval summary: one number per run and measure, as trec_eval's "all" line (and the micro average).
-- Grain: one row per run x requested measure.
-- Inputs: scores, measures (aggregate kind), runs; $wanted (list of {evaluation_id, stored,
-- measure, position}: which stored scores to read and the name to show), $run_ids (in order).
-- trec_eval: the summary is trec_summary (schema 005): the mean over evaluated queries, sums for
-- counts, the geometric mean for gm_map / gm_bpref, summed in query-id order.
-- micro: pooled counts, sum(numerator) / sum(denominator), for measures that are ratios of counts.
with wanted as (
    select unnest($wanted, recursive := true)
),

run_order as (
    select
        unnest($run_ids) as run_id,
        generate_subscripts($run_ids, 1) as run_position
),

aggregated as (
    select
        s.run_id,
        w.measure,
        w.position,
        m.aggregate,
        count(*) as queries,
        trec_summary(m.aggregate, s.value, s.query_id) as value,
        sum(s.numerator) / nullif(sum(s.denominator), 0) as micro_value
    from scores as s
    inner join wanted as w
        on w.evaluation_id = s.evaluation_id
       and w.stored = s.measure
    inner join measures as m
        on m.measure = s.measure
    where s.run_id in (select run_id from run_order)
    group by s.run_id, w.measure, w.position, m.aggregate
),

final as (
    select
        r.name as run,
        a.measure,
        a.value,
        a.micro_value as micro,
        a.queries
    from aggregated as a
    inner join run_order as o on o.run_id = a.run_id
    inner join runs as r on r.run_id = a.run_id
    order by o.run_position, a.position
)

select * from final
