-- store user scores: the per-query values of user measures (computed in irw sql's sandbox by
-- warehouse/evaluation/user_measures.py and loaded into eval_user_values), stored under the evaluation.
-- Grain: one row of scores per run x evaluated query x user measure.
-- Inputs: eval_run_queries (the query set, 04_run_queries.sql), eval_user_values (measure,
-- run_id, query_id, value); $evaluation_id, $qrels_set_id, $measures (stored names).
-- trec_eval: every evaluated query has a value; a query the measure gives no row or a null value
-- (a query -c adds, which the run lacks, has no row in ranked_judged) scores 0, as trec_eval
-- scores an empty ranking.
insert into scores (evaluation_id, qrels_set_id, run_id, query_id, measure, value, numerator, denominator)
with wanted as (
    select unnest($measures) as measure
),

final as (
    select
        cast($evaluation_id as integer) as evaluation_id,
        cast($qrels_set_id as integer) as qrels_set_id,
        q.run_id,
        q.query_id,
        w.measure,
        coalesce(v.value, 0.0) as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from eval_run_queries as q
    cross join wanted as w
    left join eval_user_values as v
        on v.run_id = q.run_id
       and v.query_id = q.query_id
       and v.measure = w.measure
)

select * from final
