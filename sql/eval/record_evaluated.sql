-- record evaluated: which (run, measure) of an evaluation now hold stored scores, and over how
-- many queries, so a later call computes only what is missing (a run or measure added).
-- Grain: one row of evaluated per run x measure just computed, inserted or replaced.
-- Inputs: runs, eval_run_queries (the query set just scored); $evaluation_id, $run_ids,
-- $measures (stored names). A run with no evaluated query is recorded with query_count 0.
-- trec_eval: none (bookkeeping; the values themselves are in scores).
insert into evaluated (evaluation_id, run_id, measure, query_count)
with query_counts as (
    select
        run_id,
        count(*) as query_count
    from eval_run_queries
    group by run_id
),

computed_measures as (
    select unnest($measures) as measure
),

final as (
    select
        cast($evaluation_id as integer) as evaluation_id,
        r.run_id,
        m.measure,
        coalesce(q.query_count, 0) as query_count
    from runs as r
    cross join computed_measures as m
    left join query_counts as q
        on q.run_id = r.run_id
    where r.run_id in (select unnest($run_ids))
)

select * from final
on conflict (evaluation_id, run_id, measure) do update
    set query_count = excluded.query_count,
        computed_at = excluded.computed_at
