-- zscores: `irw trec-eval -Z ZSCORE_FILE`: every per-query value as a z score against a reference
-- set of runs (the file's mean and standard deviation for that query and measure), and the
-- summary of those z scores.
-- Grain: one row per measure x evaluated query (is_summary false), and one per measure (is_summary
-- true, query_id null).
-- Inputs: trec_eval_zscore_values (position: the measure's place in trec_eval's order; measure:
-- the name trec_eval gives the value, as the zscore file names it; aggregate: mean, sum, geo or
-- count; query_id; value: the raw per-query value; in_run: false for a query -c adds),
-- trec_eval_zscores (query_id, measure, mean, stddev: the file's lines), $num_queries (the
-- queries averaged over).
-- trec_eval (convert_zscores.c, then its usual accumulation): z = (value - mean) / stddev. A query
-- the file lacks turns every value of that query into -1000000 (MISSING_ZSCORE_VALUE), and so
-- does a measure the file lacks for that query, and a stddev of 0 unless the value equals the mean
-- (then 0). gm_map / gm_bpref convert the log of the value floored at 1e-5 (what trec_eval keeps per
-- query) and print exp of the mean z. Counts (num_ret ...) sum their z scores; num_q stays the
-- number of queries. Sums run in query-id order, as sql/eval/summary.sql's do. A query -c adds is
-- never converted (trec_eval converts the queries it evaluates; -c's averages then count the others
-- as 0, and gm_map / gm_bpref as log 1e-5): it keeps its raw value, which is that.
with raw as (
    select
        v.position,
        v.measure,
        v.aggregate,
        v.query_id,
        v.in_run,
        case
            when v.aggregate = 'geo' then ln(greatest(v.value, 0.00001))
            else v.value
        end as value
    from trec_eval_zscore_values as v
),

known_queries as (
    select distinct query_id
    from trec_eval_zscores
),

converted as (
    select
        r.position,
        r.measure,
        r.aggregate,
        r.query_id,
        case
            when not r.in_run then r.value
            when q.query_id is null or z.measure is null then -1000000.0
            when z.stddev <> 0 then (r.value - z.mean) / z.stddev
            when r.value = z.mean then 0.0
            else -1000000.0
        end as value
    from raw as r
    left join known_queries as q
        on q.query_id = r.query_id
    left join trec_eval_zscores as z
        on z.query_id = r.query_id
       and z.measure = r.measure
),

summary as (
    select
        position,
        measure,
        case max(aggregate)
            when 'count' then cast($num_queries as double)
            when 'sum' then sum(value order by query_id)
            when 'geo' then exp(sum(value order by query_id) / cast($num_queries as double))
            else sum(value order by query_id) / cast($num_queries as double)
        end as value
    from converted
    group by position, measure
),

final as (
    select false as is_summary, position, measure, query_id, value
    from converted
    union all
    select true as is_summary, position, measure, cast(null as varchar) as query_id, value
    from summary
)

select * from final
order by is_summary, query_id, position
