-- leaderboard: every stored run with the summary value of each requested measure, ranked.
-- Grain: one row per run x requested measure; a run with no score for a measure (no query it
-- shares with the qrels) keeps its row with a null value.
-- Inputs: runs, scores, measures (aggregate kind), qrels_sets; $wanted (list of {evaluation_id,
-- stored, measure, position}; position 0 is the primary measure), $qrels_set_id.
-- trec_eval: value is trec_summary (schema 005), the summary eval/summary.sql prints (the "all"
-- line). queries counts the evaluated queries; judged_queries the qrels set's.
-- Rank: competition rank ("1, 2, 2, 4") by the primary measure, highest first, values equal to 12
-- decimals sharing a rank (two runs with equal means over different per-query values can differ
-- in the last bits); runs without a primary value come last, unranked. Ties order by run name
-- (byte order).
with wanted as (
    select unnest($wanted, recursive := true)
),

summarized as (
    select
        s.run_id,
        w.position,
        count(*) as queries,
        trec_summary(m.aggregate, s.value, s.query_id) as value
    from scores as s
    inner join wanted as w
        on w.evaluation_id = s.evaluation_id
       and w.stored = s.measure
    inner join measures as m
        on m.measure = s.measure
    group by s.run_id, w.position, m.aggregate
),

primary_values as (
    select
        r.run_id,
        p.value as primary_value
    from runs as r
    left join summarized as p
        on p.run_id = r.run_id
       and p.position = 0
),

ranked as (
    -- rank() over every run would rank the runs without a value too: they get null instead
    select
        run_id,
        primary_value,
        case
            when primary_value is null then null
            else rank() over (order by round(primary_value, 12) desc nulls last)
        end as rank
    from primary_values
),

final as (
    select
        k.rank,
        r.run_id,
        r.name as run,
        coalesce(r.system, r.name) as system,
        r.description,
        r.file_created_at as run_date,
        w.measure,
        w.position,
        v.value,
        coalesce(v.queries, 0) as queries,
        q.query_count as judged_queries
    from runs as r
    inner join ranked as k on k.run_id = r.run_id
    cross join wanted as w
    left join summarized as v
        on v.run_id = r.run_id
       and v.position = w.position
    cross join (select query_count from qrels_sets where qrels_set_id = $qrels_set_id) as q
    order by k.rank nulls last, r.name, w.position
)

select * from final
