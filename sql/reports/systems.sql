-- systems: each system's latest run on each qrels set, on one measure, and the system's mean over
-- the sets (irw report systems: the table of systems x collections papers print, BEIR's).
-- Grain: one row per system x qrels set of report_sets that judges a run of the system
-- (report_set_runs) with stored scores of the set's evaluation, the system's mean and rank
-- repeated on each of its rows; ordered by rank, then system, then the set's position.
-- Inputs: runs, scores, measures (aggregate kind); report_sets (temporary: evaluation_id, stored
-- (the measure's stored name), qrels, position: one row per qrels set, the order of the columns),
-- report_set_runs (temporary: qrels, run_id: the chosen runs each set judges, by
-- catalog/judging_rule.sql; a run evaluated outright with a set that does not judge it has scores
-- of that set's evaluation, which are no value of its system there).
-- trec_eval: value is the run's summary eval/summary.sql prints for the measure on that set (the
-- "all" line), by the one summary rule eval/summary_rule.sql, composed here.
-- A system is its runs' system, or a run's name where it has none (as irw runs and the history).
-- Latest: the last run in the history's order (sql/reports/history.sql: run date, then ingest
-- time, then run id), so a run without a date counts as the newest, as it is last there.
-- mean: the arithmetic mean of the system's values over the sets, summed in set order; null unless
-- the system has a value on every set (a mean over fewer sets is not comparable). rank: competition
-- rank ("1, 2, 2, 4") by mean, highest first, means equal to 12 decimals sharing a rank; systems
-- without a mean come last, unranked.
with summary_scores as (
    select
        s.run_id,
        s.evaluation_id,
        s.measure,
        0 as position,
        m.aggregate,
        s.query_id,
        s.value,
        s.numerator,
        s.denominator
    from scores as s
    inner join report_sets as w
        on w.evaluation_id = s.evaluation_id
       and w.stored = s.measure
    inner join report_set_runs as o
        on o.qrels = w.qrels
       and o.run_id = s.run_id
    inner join measures as m
        on m.measure = s.measure
),

summarized as (
    select
        run_id,
        evaluation_id,
        queries,
        value
    from "eval/summary_rule.sql" as a
),

dated as (
    select
        coalesce(r.system, r.name) as system,
        w.qrels,
        w.position as set_position,
        r.name as run,
        r.file_created_at as run_date,
        a.value,
        a.queries,
        count(*) over (partition by coalesce(r.system, r.name), w.qrels) as system_runs,
        row_number() over (
            partition by coalesce(r.system, r.name), w.qrels
            order by r.file_created_at desc nulls first, r.ingested_at desc, r.run_id desc
        ) as recency
    from summarized as a
    inner join runs as r on r.run_id = a.run_id
    inner join report_sets as w on w.evaluation_id = a.evaluation_id
),

latest as (
    select *
    from dated
    where recency = 1
),

system_means as (
    select
        system,
        count(*) as sets,
        case
            when count(*) = (select count(*) from report_sets) and count(value) = count(*)
                then sum(value order by set_position) / count(*)
        end as mean
    from latest
    group by system
),

ranked as (
    -- a NaN mean (a set's value is trec_eval's nan) ranks no more than no mean
    select
        system,
        sets,
        mean,
        case
            when nullif(mean, cast('nan' as double)) is null then null
            else rank() over (order by round(nullif(mean, cast('nan' as double)), 12) desc nulls last)
        end as rank
    from system_means
),

final as (
    select
        k.rank,
        l.system,
        l.qrels,
        l.set_position,
        l.run,
        l.run_date,
        l.value,
        l.queries,
        l.system_runs,
        k.sets,
        k.mean
    from latest as l
    inner join ranked as k on k.system = l.system
)

select *
from final
order by rank nulls last, system, set_position
