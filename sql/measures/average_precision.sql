-- average precision: AP (map), GMAP (gm_map), AP@k (map_cut_k), AP@k with denominator min(R, k).
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_judged (rel_so_far = relevant documents at or above each rank), eval_run_queries,
-- eval_params (measure, family, k) of $measures (the stored names of this file's measures).
-- trec_eval: AP sums the precision at the rank of each retrieved relevant document and divides
-- by R, so unretrieved relevant documents count 0; AP = 0 when R = 0. map_cut_k sums only ranks
-- <= k and still divides by R. gm_map stores AP per query; the summary takes the geometric mean.
-- AP@k(denom=min) divides by min(R, k) instead (seed 003's second convention).
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure, family, k
    from eval_params
    where measure in (select unnest($measures))
),

precision_at_relevant as (
    select
        run_id,
        query_id,
        rank,
        cast(rel_so_far as double) / rank as precision
    from eval_judged
    where is_rel
),

whole_sums as (
    -- the sum over the whole ranking, once (map and gm_map both read it)
    select
        run_id,
        query_id,
        sum(precision order by rank) as precision_sum
    from precision_at_relevant
    where exists (select 1 from params where family in ('map', 'gm_map'))
    group by run_id, query_id
),

sums as (
    select
        s.run_id,
        s.query_id,
        p.measure,
        s.precision_sum
    from whole_sums as s
    inner join params as p
        on p.family in ('map', 'gm_map')
    union all
    select
        r.run_id,
        r.query_id,
        p.measure,
        sum(r.precision order by r.rank) as precision_sum
    from precision_at_relevant as r
    inner join params as p
        on p.family not in ('map', 'gm_map')
       and r.rank <= p.k
    group by r.run_id, r.query_id, p.measure
),

final as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        coalesce(
            s.precision_sum / nullif(
                cast(case when p.family = 'map_cut_min' then least(q.num_rel, p.k) else q.num_rel end as double),
                0),
            0.0) as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from eval_run_queries as q
    cross join params as p
    left join sums as s
        on s.run_id = q.run_id
       and s.query_id = q.query_id
       and s.measure = p.measure
)

select * from final
