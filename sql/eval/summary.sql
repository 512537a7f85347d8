-- eval summary: one number per run and measure, as trec_eval's "all" line (and the micro average).
-- Grain: one row per run x requested measure.
-- Inputs: scores, measures (aggregate kind), runs; eval_wanted (evaluation_id, stored, measure,
-- position: which stored scores to read, the name to show and its place) and eval_wanted_runs
-- (run_id, position: the runs in the order asked), temporary tables warehouse/evaluate.py fills.
-- trec_eval: the mean over evaluated queries, sums for counts, the geometric mean for gm_map /
-- gm_bpref with each value floored at 1e-5 (trec_eval's MIN_GEO_MEAN), every sum in query-id order
-- (trec_eval's accumulation order, so a value has the same bits on every run; an unordered
-- parallel sum may differ in the last bits). The same rule as schema 005's trec_summary.
-- micro: pooled counts, sum(numerator) / sum(denominator), for measures that are ratios of counts.
with aggregated as (
    select
        s.run_id,
        w.measure,
        w.position,
        m.aggregate,
        count(*) as queries,
        case m.aggregate
            when 'sum' then sum(s.value order by s.query_id)
            when 'geo' then exp(sum(ln(greatest(s.value, 0.00001)) order by s.query_id) / count(*))
            else sum(s.value order by s.query_id) / count(*)
        end as value,
        sum(s.numerator) / nullif(sum(s.denominator), 0) as micro_value
    from scores as s
    inner join eval_wanted as w
        on w.evaluation_id = s.evaluation_id
       and w.stored = s.measure
    inner join measures as m
        on m.measure = s.measure
    where s.run_id in (select run_id from eval_wanted_runs)
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
    inner join eval_wanted_runs as o on o.run_id = a.run_id
    inner join runs as r on r.run_id = a.run_id
    order by o.position, a.position
)

select * from final
