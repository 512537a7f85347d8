-- infAP: inferred average precision (Yilmaz and Aslam 2006), trec_eval's m_infAP.
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_judged (judged retrieved documents, ranks and running counts), eval_run_queries,
-- eval_params (measure) of $measures.
-- trec_eval: for the relevant document at rank j+1 (rs relevant so far, counting it; nr judged
-- non-relevant and pu negatively graded documents above it), the expected precision is 1 at
-- rank 1, else 1/(j+1) + (j/(j+1)) * ((rs-1+nr+pu)/j) * ((rs-1+e)/(rs-1+nr+2e)), e = 1e-5;
-- unjudged documents occupy ranks but count nowhere. The sum is divided by R (0 when R = 0).
-- On complete judgments infAP equals AP.
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure
    from eval_params
    where measure in (select unnest($measures))
),

judged_counts as (
    select
        run_id,
        query_id,
        rank,
        is_rel,
        cast(rel_so_far as double) as rs,
        cast(nonrel_so_far as double) as nr,
        cast(sum(case when grade < 0 then 1 else 0 end) over (
            partition by run_id, query_id order by rank rows between unbounded preceding and current row
        ) as double) as pu
    from eval_judged
),

contributions as (
    select
        run_id,
        query_id,
        sum(
            case
                when rank = 1 then 1.0
                else 1.0 / rank
                    + (cast(rank - 1 as double) / rank)
                    * ((rs - 1 + nr + pu) / (rank - 1))
                    * ((rs - 1 + 0.00001) / (rs - 1 + nr + 2 * 0.00001))
            end
            order by rank
        ) as inf_sum
    from judged_counts
    where is_rel
    group by run_id, query_id
),

final as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        coalesce(c.inf_sum / nullif(cast(q.num_rel as double), 0), 0.0) as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from eval_run_queries as q
    cross join params as p
    left join contributions as c
        on c.run_id = q.run_id
       and c.query_id = q.query_id
)

select * from final
