-- eval summary: one number per run and measure, as trec_eval's "all" line (and the micro average).
-- Grain: one row per run x requested measure.
-- Inputs: scores, measures (aggregate kind), runs; eval_wanted (evaluation_id, stored, measure,
-- position: which stored scores to read, the name to show and its place) and eval_wanted_runs
-- (run_id, position: the runs in the order asked), temporary tables warehouse/evaluation/evaluator.py fills.
-- trec_eval: the summary rule, eval/summary_rule.sql (composed here: the mean over evaluated
-- queries, sums for counts, the geometric mean floored at 1e-5 for gm_map / gm_bpref, every sum in
-- query-id order; micro: pooled counts, sum(numerator) / sum(denominator), for ratio measures).
with summary_scores as (
    select
        s.run_id,
        s.evaluation_id,
        w.measure,
        w.position,
        m.aggregate,
        s.query_id,
        s.value,
        s.numerator,
        s.denominator
    from scores as s
    inner join eval_wanted as w
        on w.evaluation_id = s.evaluation_id
       and w.stored = s.measure
    inner join measures as m
        on m.measure = s.measure
    where s.run_id in (select run_id from eval_wanted_runs)
),

final as (
    select
        r.name as run,
        a.measure,
        a.value,
        a.micro,
        a.queries
    from "eval/summary_rule.sql" as a
    inner join eval_wanted_runs as o on o.run_id = a.run_id
    inner join runs as r on r.run_id = a.run_id
    order by o.position, a.position
)

select * from final
