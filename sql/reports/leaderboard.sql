-- leaderboard: the chosen runs with the summary value of each requested measure, ranked.
-- Grain: one row per run of report_runs x requested measure; a run with no score for a measure
-- (no query it shares with the qrels) keeps its row with a null value.
-- Inputs: runs, scores, measures (aggregate kind), qrels_sets; report_wanted (temporary:
-- evaluation_id, stored, measure, position; position 0 is the primary measure), report_runs
-- (temporary: run_id, run_position: the runs the board shows), $qrels_set_id.
-- trec_eval: value is the summary eval/summary.sql prints (the "all" line), by the one summary rule
-- eval/summary_rule.sql, composed here.
-- queries counts the evaluated queries; judged_queries the qrels set's.
-- Rank: competition rank ("1, 2, 2, 4") by the primary measure, highest first, values equal to 12
-- decimals sharing a rank (two runs with equal means over different per-query values can differ
-- in the last bits); runs without a primary value (or with a NaN one) come last, unranked. Ties
-- order by run name (byte order).
with summary_scores as (
    select
        s.run_id,
        s.evaluation_id,
        s.measure,
        w.position,
        m.aggregate,
        s.query_id,
        s.value,
        s.numerator,
        s.denominator
    from scores as s
    inner join report_wanted as w
        on w.evaluation_id = s.evaluation_id
       and w.stored = s.measure
    inner join measures as m
        on m.measure = s.measure
),

summarized as (
    select
        run_id,
        position,
        queries,
        value
    from "eval/summary_rule.sql" as a
),

primary_values as (
    select
        r.run_id,
        -- a NaN mean (trec_eval's nan: a per-query value undefined) ranks no more than no value
        nullif(p.value, cast('nan' as double)) as primary_value
    from runs as r
    inner join report_runs as o on o.run_id = r.run_id
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
    cross join report_wanted as w
    left join summarized as v
        on v.run_id = r.run_id
       and v.position = w.position
    cross join (select query_count from qrels_sets where qrels_set_id = $qrels_set_id) as q
    order by k.rank nulls last, r.name, w.position
)

select * from final
