-- set measures: SetP (set_P), set_relative_P, SetR (set_recall), SetAP (set_map), SetF (set_F),
-- and utility. They look at the retrieved set as a whole, not at ranks.
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_run_queries (n = num_ret, R = num_rel, r = num_rel_ret), $params (list of
-- {measure, family, x, xs}).
-- trec_eval: set_P = r/n; set_relative_P = r/min(n, R); set_recall = r/R; set_map = r^2/(n R);
-- each 0 when its denominator is 0. set_F with parameter x (beta squared; SetF(beta=b) binds
-- x = b^2) is (x+1) P R / (x P + R) when r > 0, else 0. utility with (p1, p2, p3, p4) is
-- p1 r + p2 (n - r) + p3 (R - r) + p4 (N + r - n - R), with N, the collection size, 0 as in
-- trec_eval without -N.
-- numerator/denominator: the counts behind each ratio, so micro averages pool TP, FP and FN:
-- micro F = (x+1) sum(TP) / ((x+1) sum(TP) + x sum(FN) + sum(FP)).
with params as (
    select unnest($params, recursive := true)
),

counts as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        p.family,
        p.x,
        p.xs,
        cast(q.num_ret as double) as n,
        cast(q.num_rel as double) as big_r,
        cast(q.num_rel_ret as double) as r
    from eval_run_queries as q
    cross join params as p
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
            when 'utility' then xs[1] * r + xs[2] * (n - r) + xs[3] * (big_r - r) + xs[4] * (r - n - big_r)
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
