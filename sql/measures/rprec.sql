-- R-precision: Rprec and Rprec_mult_x (precision at rank x * R).
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_judged, eval_run_queries, eval_params (measure, family, x) of
-- $measures.
-- trec_eval: Rprec = cnt(min(n, R)) / R (0 when R = 0 or nothing was retrieved), where cnt(k) is
-- the number of relevant documents in the top k. Rprec_mult_x takes k = (long)(x * R + 0.9) in
-- both 9.0.8 and 10.0: r / k when k > n (n retrieved, r relevant of them), cnt(k) / k when
-- 1 <= k <= n, and 0 when k <= 0 (a 0 or negative x: +0, never the -0 of 0 / -1).
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure, family, x
    from eval_params
    where measure in (select unnest($measures))
),

cutoffs as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        p.family,
        q.num_ret,
        q.num_rel,
        q.num_rel_ret,
        case
            when p.family = 'Rprec' then least(q.num_ret, q.num_rel)
            else cast(floor(p.x * q.num_rel + 0.9) as bigint)
        end as k
    from eval_run_queries as q
    cross join params as p
),

hits as (
    select
        c.run_id,
        c.query_id,
        c.measure,
        count(*) as rel_at_k
    from cutoffs as c
    inner join eval_judged as j
        on j.run_id = c.run_id
       and j.query_id = c.query_id
       and j.is_rel
       and j.rank <= c.k
    group by c.run_id, c.query_id, c.measure
),

final as (
    select
        c.run_id,
        c.query_id,
        c.measure,
        case
            when c.k <= 0 then 0.0
            when c.family = 'Rprec' then cast(coalesce(h.rel_at_k, 0) as double) / c.num_rel
            when c.k > c.num_ret then cast(c.num_rel_ret as double) / c.k
            else cast(coalesce(h.rel_at_k, 0) as double) / c.k
        end as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from cutoffs as c
    left join hits as h
        on h.run_id = c.run_id
       and h.query_id = c.query_id
       and h.measure = c.measure
)

select * from final
