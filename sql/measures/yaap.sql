-- yaap: "yet another average precision" (Robertson, ECIR 2012), trec_eval's m_yaap (asked for by
-- name, -m yaap: it is not in all_trec).
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_judged (rel_so_far = relevant documents at or above each rank), eval_run_queries
-- (num_rel = R), eval_params (measure, family) of $measures.
-- trec_eval: with S the sum, in rank order, of the precision at each retrieved relevant document
-- (rel_so_far / rank: AP's numerator), yaap = ln((1 + S) / (1 + R - S)); 0 for a query with no
-- relevant document retrieved and none judged (ln 1). The summary is the mean over queries.
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure, family
    from eval_params
    where measure in (select unnest($measures))
),

sums as (
    select
        run_id,
        query_id,
        sum(cast(rel_so_far as double) / rank order by rank) as precision_sum
    from eval_judged
    where is_rel
    group by run_id, query_id
),

final as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        ln((1.0 + coalesce(s.precision_sum, 0.0))
           / (1.0 + cast(q.num_rel as double) - coalesce(s.precision_sum, 0.0))) as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from eval_run_queries as q
    cross join params as p
    left join sums as s
        on s.run_id = q.run_id
       and s.query_id = q.query_id
    where p.family = 'yaap'
)

select * from final
