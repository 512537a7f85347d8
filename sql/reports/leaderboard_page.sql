-- leaderboard_page: one page of the served leaderboard (irw serve): the chosen runs ranked by the
-- primary measure as leaderboard.sql ranks them, kept by the filter, sorted by the column asked
-- for, then cut to one page; with each row the counts and column bests the page states.
-- Grain: one row per run of the page x report_wanted measure (a run with no score for a measure
-- keeps its row with a null value), in page order, then measure position.
-- Inputs: runs, scores, measures (aggregate kind), qrels_sets; report_wanted (temporary:
-- evaluation_id, stored, measure, position; position 0 is the primary measure), report_runs
-- (temporary: run_id, run_position: every run of the board, not only the page's), $qrels_set_id,
-- $filter (text; '' keeps every run: else the runs whose name or system holds it, case folded),
-- $sort_kind ('rank', 'run', 'system', 'measure' (the value at $sort_position), 'queries' or
-- 'date'; a value of the server's registry, warehouse/serve/paging.py), $sort_position,
-- $descending, $page_limit, $page_offset.
-- trec_eval: value is the summary eval/summary.sql prints (the "all" line), computed as
-- leaderboard.sql computes it (mean, sum for counts, geometric mean for gm_*), summed in query-id
-- order, for the page's runs only. Over every run of the board, ranks, sort keys and column bests
-- use the same summaries summed in any order (no sort per run: at 10,000 runs the ordered sums took
-- most of the page's time) rounded to 12 decimals, as leaderboard.sql ranks on 12 decimals: the
-- order of a sum moves only its last bits. rank is leaderboard.sql's competition rank over every
-- run of the board, filtered or not (a run's rank never depends on the page or the filter).
-- Order: the sort key (a measure's at 12 decimals; nulls last either way), then run name (byte
-- order): a total order, so pages never overlap or skip a run. total: the runs the filter keeps; board_runs: every run of the
-- board; top_run: the rank-1 run (first by name among equals), the default baseline;
-- systems_shown: 1 when a run of the board has a system other than its name (the page shows the
-- System column); best_high / best_low: each measure's highest and lowest value over the board.
with fast as (
    select
        s.run_id,
        w.position,
        m.aggregate,
        count(*) as queries,
        sum(s.value) as sum_value,
        exp(sum(ln(greatest(s.value, 0.00001))) / count(*)) as geo_value
    from scores as s
    inner join report_wanted as w
        on w.evaluation_id = s.evaluation_id
       and w.stored = s.measure
    inner join report_runs as o on o.run_id = s.run_id
    inner join measures as m
        on m.measure = s.measure
    group by s.run_id, w.position, m.aggregate
),

approximate as (
    select
        run_id,
        position,
        queries,
        round(case aggregate
            when 'sum' then sum_value
            when 'geo' then geo_value
            else sum_value / queries
        end, 12) as value
    from fast
),

board as (
    select
        r.run_id,
        r.name as run,
        coalesce(r.system, r.name) as system,
        r.file_created_at as run_date,
        p.value as primary_value,
        coalesce(p.queries, 0) as primary_queries,
        k.value as sort_value
    from runs as r
    inner join report_runs as o on o.run_id = r.run_id
    left join approximate as p
        on p.run_id = r.run_id
       and p.position = 0
    left join approximate as k
        on k.run_id = r.run_id
       and k.position = cast($sort_position as integer)
),

ranked as (
    select
        run_id,
        run,
        system,
        run_date,
        primary_queries,
        sort_value,
        case
            when primary_value is null then null
            else rank() over (order by primary_value desc nulls last)
        end as rank,
        count(*) over () as board_runs,
        max(case when system <> run then 1 else 0 end) over () as systems_shown,
        first_value(run) over (order by primary_value desc nulls last, run) as top_run
    from board
),
kept as (
    select
        *,
        case cast($sort_kind as varchar)
            when 'rank' then cast(rank as double precision)
            when 'measure' then sort_value
            when 'queries' then cast(primary_queries as double precision)
        end as sort_number,
        case cast($sort_kind as varchar)
            when 'run' then run
            when 'system' then system
        end as sort_text,
        case cast($sort_kind as varchar)
            when 'date' then run_date
        end as sort_time
    from ranked
    where cast($filter as varchar) = ''
       or strpos(lower(run), lower(cast($filter as varchar))) > 0
       or strpos(lower(system), lower(cast($filter as varchar))) > 0
),

paged as (
    select
        *,
        count(*) over () as total
    from kept
    order by
        case when cast($descending as boolean) then sort_number end desc nulls last,
        case when not cast($descending as boolean) then sort_number end asc nulls last,
        case when cast($descending as boolean) then sort_text end desc nulls last,
        case when not cast($descending as boolean) then sort_text end asc nulls last,
        case when cast($descending as boolean) then sort_time end desc nulls last,
        case when not cast($descending as boolean) then sort_time end asc nulls last,
        run
    limit cast($page_limit as integer)
    offset cast($page_offset as integer)
),

numbered as (
    select
        *,
        row_number() over (
            order by
                case when cast($descending as boolean) then sort_number end desc nulls last,
                case when not cast($descending as boolean) then sort_number end asc nulls last,
                case when cast($descending as boolean) then sort_text end desc nulls last,
                case when not cast($descending as boolean) then sort_text end asc nulls last,
                case when cast($descending as boolean) then sort_time end desc nulls last,
                case when not cast($descending as boolean) then sort_time end asc nulls last,
                run
        ) as page_position
    from paged
),

bests as (
    select
        position,
        max(value) as best_high,
        min(value) as best_low
    from approximate
    group by position
),

exact_aggregated as (
    -- trec_eval's sums, in query-id order, of the page's runs only
    select
        s.run_id,
        w.position,
        m.aggregate,
        count(*) as queries,
        sum(s.value order by s.query_id) as sum_value,
        exp(sum(ln(greatest(s.value, 0.00001)) order by s.query_id) / count(*)) as geo_value
    from scores as s
    inner join report_wanted as w
        on w.evaluation_id = s.evaluation_id
       and w.stored = s.measure
    inner join numbered as n on n.run_id = s.run_id
    inner join measures as m
        on m.measure = s.measure
    group by s.run_id, w.position, m.aggregate
),

summarized as (
    select
        run_id,
        position,
        queries,
        case aggregate
            when 'sum' then sum_value
            when 'geo' then geo_value
            else sum_value / queries
        end as value
    from exact_aggregated
),

final as (
    select
        n.page_position,
        n.rank,
        r.run_id,
        r.name as run,
        n.system,
        r.description,
        n.run_date,
        w.measure,
        w.position,
        v.value,
        coalesce(v.queries, 0) as queries,
        q.query_count as judged_queries,
        n.total,
        n.board_runs,
        n.top_run,
        n.systems_shown,
        b.best_high,
        b.best_low
    from numbered as n
    inner join runs as r on r.run_id = n.run_id
    cross join report_wanted as w
    left join summarized as v
        on v.run_id = n.run_id
       and v.position = w.position
    left join bests as b on b.position = w.position
    cross join (select query_count from qrels_sets where qrels_set_id = $qrels_set_id) as q
    order by n.page_position, w.position
)

select * from final
