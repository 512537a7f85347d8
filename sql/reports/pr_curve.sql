-- pr_curve: the interpolated precision-recall curve of each run, from its stored IPrec scores.
-- Grain: one row per run x recall level, in the order of $run_ids, then recall level.
-- Inputs: scores, measures (aggregate kind); $levels (list of {evaluation_id, stored, recall}: the IPrec@x measures, one per
-- recall level), $run_ids.
-- trec_eval: each point is the summary (trec_summary, schema 005) of iprec_at_recall_x: the mean
-- over evaluated queries of the highest precision at any rank whose recall reaches x; the 11 points 0.0 ... 1.0 are
-- trec_eval's interpolated recall-precision averages, so the curve is the one trec_eval prints.
with levels as (
    select unnest($levels, recursive := true)
),

run_order as (
    select
        unnest($run_ids) as run_id,
        generate_subscripts($run_ids, 1) as run_position
),

final as (
    select
        s.run_id,
        l.recall,
        trec_summary(m.aggregate, s.value, s.query_id) as precision,
        count(*) as queries
    from scores as s
    inner join levels as l
        on l.evaluation_id = s.evaluation_id
       and l.stored = s.measure
    inner join measures as m on m.measure = s.measure
    inner join run_order as o on o.run_id = s.run_id
    group by s.run_id, o.run_position, l.recall, m.aggregate
    order by o.run_position, l.recall
)

select * from final
