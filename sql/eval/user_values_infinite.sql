-- user values infinite: per user measure, a value it computed that is infinite (the first by run
-- name and query), and how many such values it computed, checked before any is stored.
-- Grain: one row per user measure with such a value, by stored name.
-- Inputs: eval_user_values (measure, run_id, query_id, value: what warehouse/evaluation/user_measures.py
-- computed in irw sql's sandbox, loaded by warehouse/evaluation/evaluator.py), runs.
-- trec_eval: none (a user measure is irw's). A user measure's value is a number (docs/measures.md):
-- an infinity (a division by zero, 'inf' cast to double) would be stored and averaged into every
-- summary, so the evaluation is refused. NaN is kept: a value undefined for a query (0/0, judged
-- precision where nothing is judged), as trec_eval's own -nan is, which the reports leave unranked.
with infinite as (
    select
        v.measure,
        r.name as run,
        v.query_id,
        v.value
    from eval_user_values as v
    inner join runs as r
        on r.run_id = v.run_id
    where v.value in (cast('infinity' as double), cast('-infinity' as double))
),

numbered as (
    select
        measure,
        run,
        query_id,
        value,
        row_number() over (partition by measure order by run, query_id) as position,
        count(*) over (partition by measure) as infinite_values
    from infinite
),

final as (
    select
        measure,
        run,
        query_id,
        value,
        infinite_values
    from numbered
    where position = 1
)

select * from final
order by measure
