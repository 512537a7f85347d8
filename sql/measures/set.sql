-- set measures: SetP (set_P), set_relative_P, SetR (set_recall), SetAP (set_map), SetF (set_F),
-- and utility. They look at the retrieved set as a whole, not at ranks.
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_run_queries (n = num_ret, R = num_rel, r = num_rel_ret), eval_params (measure,
-- family, x) of $measures, eval_param_values (utility's p1..p4 at positions 1..4).
-- trec_eval: set_P = r/n; set_relative_P = r/min(n, R); set_recall = r/R; set_map = r^2/(n R);
-- each 0 when its denominator is 0. set_F with parameter x (beta squared; SetF(beta=b) binds
-- x = b^2) is (x+1) P R / (x P + R) when r > 0, else 0. utility with (p1, p2, p3, p4) is
-- p1 r + p2 (n - r) + p3 (R - r) + p4 (N + r - n - R), with N the collection size $num_docs
-- (trec_eval -N; 0 without it, as in trec_eval). N reaches no other measure, in trec_eval either.
-- numerator/denominator: the counts behind each ratio, so micro averages pool TP, FP and FN:
-- micro F = (x+1) sum(TP) / ((x+1) sum(TP) + x sum(FN) + sum(FP)).
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure, family, x
    from eval_params
    where measure in (select unnest($measures))
),

utility_coefficients as (
    -- a coefficient not given is null, and so is the value
    select
        measure,
        max(case when position = 1 then value end) as p1,
        max(case when position = 2 then value end) as p2,
        max(case when position = 3 then value end) as p3,
        max(case when position = 4 then value end) as p4
    from eval_param_values
    where measure in (select measure from params where family = 'utility')
    group by measure
),

counts as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        p.family,
        p.x,
        u.p1,
        u.p2,
        u.p3,
        u.p4,
        cast(q.num_ret as double) as n,
        cast(q.num_rel as double) as big_r,
        cast(q.num_rel_ret as double) as r
    from eval_run_queries as q
    cross join params as p
    left join utility_coefficients as u
        on u.measure = p.measure
),

valued as (
    select
        run_id,
        query_id,
        measure,
        case family
            when 'set_P' then coalesce(r / nullif(n, 0), 0.0)
            when 'set_relative_P' then coalesce(r / nullif(least(n, big_r), 0), 0.0)
            when 'set_recall' then coalesce(r / nullif(big_r, 0), 0.0)
            when 'set_map' then coalesce((r * r) / nullif(n * big_r, 0), 0.0)
            when 'set_F' then case
                when r > 0 then (x + 1) * (r / n) * (r / big_r) / (x * (r / n) + (r / big_r))
                else 0.0
            end
            when 'utility' then p1 * r + p2 * (n - r) + p3 * (big_r - r) + p4 * (cast($num_docs as double) + r - n - big_r)
        end as value,
        case family
            when 'set_P' then r
            when 'set_relative_P' then r
            when 'set_recall' then r
            when 'set_F' then (x + 1) * r
        end as numerator,
        case family
            when 'set_P' then n
            when 'set_relative_P' then least(n, big_r)
            when 'set_recall' then big_r
            when 'set_F' then (x + 1) * r + x * (big_r - r) + (n - r)
        end as denominator
    from counts
),

final as (
    select run_id, query_id, measure, value, numerator, denominator
    from valued
)

select * from final
