-- eval summary: one number per run and measure, as trec_eval's "all" line (and the micro average).
-- Grain: one row per run x requested measure.
-- Inputs: scores, measures (aggregate kind), runs; $wanted (list of {evaluation_id, stored,
-- measure, position}: which stored scores to read and the name to show), $run_ids (in order).
-- trec_eval: the summary is the mean over evaluated queries, except counts (num_ret, num_rel,
-- num_rel_ret, num_nonrel_judged_ret, num_q), which are sums, and gm_map / gm_bpref, the
-- geometric mean with each value floored at 1e-5 (trec_eval's MIN_GEO_MEAN).
-- micro: pooled counts, sum(numerator) / sum(denominator), for measures that are ratios of counts.
-- Sums run in query-id order, trec_eval's accumulation order, so the result is deterministic.
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
        -- sums taken in query-id order, as trec_eval accumulates: the same bytes on every run,
        -- where a parallel avg() may differ in the last bits from one run to the next
        sum(s.value order by s.query_id) / count(*) as mean_value,
        sum(s.value order by s.query_id) as sum_value,
        exp(sum(ln(greatest(s.value, 0.00001)) order by s.query_id) / count(*)) as geo_value,
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
        case a.aggregate
            when 'sum' then a.sum_value
            when 'geo' then a.geo_value
            else a.mean_value
        end as value,
        a.micro_value as micro,
        a.queries
    from aggregated as a
    inner join run_order as o on o.run_id = a.run_id
    inner join runs as r on r.run_id = a.run_id
    order by o.run_position, a.position
)

select * from final
