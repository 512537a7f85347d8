-- interpolated precision: IPrec@x (iprec_at_recall_x) and 11pt_avg.
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_judged (rel_so_far at each relevant rank), eval_run_queries, eval_params (measure,
-- family, x: IPrec's level) of $measures, eval_param_values (11pt_avg's levels), $compat.
-- trec_eval: the recall level x needs c = (long)(x R + 0.9) relevant documents in 9.0.8 and
-- c = lround(x R) in 10.0; IPrec@x is the highest precision cnt(j)/j at any rank j at or below
-- the c-th relevant document (the whole ranking when c = 0), and 0 when fewer than c relevant
-- documents were retrieved. Precision only rises at relevant ranks, so the maximum is taken over
-- them: a running maximum from the bottom of the ranking up (best_below), read at the c-th
-- relevant document (one lookup per level, not a scan of every relevant document). 11pt_avg is the mean of IPrec over its levels (default 0.0, 0.1, ..., 1.0), taken as
-- trec_eval's m_11ptavg.c takes them: it walks the levels from the last given to the first while it
-- walks the relevant documents up the ranking, so a level is read at its own c only while the
-- levels from it to the end are in ascending order with c >= 1 (levels at the end needing more
-- relevant documents than were retrieved are passed over first, and score 0); from the first level
-- out of that order on, the rest score IPrec at c = 0 (`11pt_avg.1,0.1` is not `11pt_avg.0.1,1`).
-- A query the run answers but whose ranking -J emptied gets NaN where c = 0: trec_eval starts
-- from precision r/n = 0/0 there (pytrec_eval returns the same NaN).
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure, family, x
    from eval_params
    where measure in (select unnest($measures))
),

levels as (
    -- one row per (measure, recall level): IPrec has its x, 11pt_avg its list of levels (position:
    -- the place in the list as given)
    select measure, family, x as level, 1 as position, 1 as level_count from params where family = 'iprec_at_recall'
    union all
    select
        p.measure,
        p.family,
        v.value as level,
        v.position,
        count(*) over (partition by p.measure) as level_count
    from params as p
    inner join eval_param_values as v
        on v.measure = p.measure
    where p.family = '11pt_avg'
),

needed as (
    select
        q.run_id,
        q.query_id,
        l.measure,
        l.family,
        l.level,
        l.position,
        l.level_count,
        q.in_run,
        q.num_ret,
        case
            when $compat = 9 then cast(floor(l.level * q.num_rel + 0.9) as bigint)
            else cast(floor(l.level * q.num_rel) + case
                when l.level * q.num_rel - floor(l.level * q.num_rel) >= 0.5 then 1 else 0 end as bigint)
        end as rel_needed,
        q.num_rel_ret
    from eval_run_queries as q
    cross join levels as l
),

walk_ends as (
    -- the last level the walk reads (the levels after it need more relevant documents than were
    -- retrieved), and the next level's c; only 11pt_avg walks (IPrec's one level is read at its c)
    select
        *,
        max(case when rel_needed <= num_rel_ret then position end) over (
            partition by run_id, query_id, measure
        ) as last_read,
        lead(rel_needed) over (partition by run_id, query_id, measure order by position) as next_needed
    from needed
    where family = '11pt_avg'
),

walk_stops as (
    -- the level the walk stops at: the last one, up to last_read, with c < 1 or a larger c than
    -- the next level's
    select
        *,
        max(case
            when position <= last_read and (rel_needed < 1 or (position < last_read and rel_needed > next_needed))
                then position
        end) over (partition by run_id, query_id, measure) as stopped_at
    from walk_ends
),

read_levels as (
    -- the c each level is read at: IPrec's own; 11pt_avg's own, or 0 (the whole ranking) at and
    -- before the stop
    select
        run_id,
        query_id,
        measure,
        family,
        level,
        position,
        level_count,
        in_run,
        num_ret,
        rel_needed
    from needed
    where family = 'iprec_at_recall'
    union all
    select
        run_id,
        query_id,
        measure,
        family,
        level,
        position,
        level_count,
        in_run,
        num_ret,
        case when stopped_at is not null and position <= stopped_at then 0 else rel_needed end as rel_needed
    from walk_stops
),

best_below as (
    -- at each relevant document (the rel_so_far-th: one per count), the highest precision at it or
    -- at any relevant document below it: IPrec at c = rel_so_far (at c = 0, the first one's)
    select
        run_id,
        query_id,
        rel_so_far,
        max(cast(rel_so_far as double) / rank) over (
            partition by run_id, query_id order by rel_so_far desc rows between unbounded preceding and current row
        ) as precision
    from eval_judged
    where is_rel
),

interpolated as (
    select
        n.run_id,
        n.query_id,
        n.measure,
        n.family,
        n.level,
        n.position,
        n.level_count,
        case
            when n.in_run and n.num_ret = 0 and n.rel_needed = 0 then cast('nan' as double)
            else coalesce(j.precision, 0.0)
        end as precision
    from read_levels as n
    left join best_below as j
        on j.run_id = n.run_id
       and j.query_id = n.query_id
       and j.rel_so_far = greatest(n.rel_needed, 1)
),

final as (
    -- IPrec is its one level's precision; 11pt_avg the mean of its levels'
    select
        run_id,
        query_id,
        measure,
        precision as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from interpolated
    where family = 'iprec_at_recall'
    union all
    select
        run_id,
        query_id,
        measure,
        -- in trec_eval's order of addition: from the last level given to the first
        sum(precision order by level_count - position) / max(level_count) as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from interpolated
    where family = '11pt_avg'
    group by run_id, query_id, measure
)

select * from final
