-- leaderboard_page: one page of the served leaderboard (irw serve): the chosen runs ranked by the
-- primary measure as leaderboard.sql ranks them, kept by the filter, sorted by the column asked
-- for, then cut to one page; with each row the counts and column bests the page states.
-- Grain: one row per run of the page x report_wanted measure (a run with no score for a measure
-- keeps its row with a null value), in page order, then measure position.
-- Inputs: runs, qrels_sets; report_values (temporary: every run's summaries, stored in
-- score_summaries (schema 16) or just computed: leaderboard_summaries.sql); report_wanted (temporary:
-- evaluation_id, stored, measure, position; position 0 is the primary measure), report_runs
-- (temporary: run_id, run_position: every run of the board, not only the page's), $qrels_set_id,
-- $filter (text; '' keeps every run: else the runs whose name or system holds it, case folded),
-- $sort_kind ('rank', 'run', 'system', 'measure' (the value at $sort_position), 'queries' or
-- 'date'; a value of the server's registry, warehouse/serve/paging.py), $sort_position,
-- $descending, $page_limit, $page_offset.
-- trec_eval: value is the summary eval/summary.sql prints (the "all" line), as leaderboard.sql
-- computes it (mean, sum for counts, geometric mean for gm_*, summed in query-id order), stored
-- once per run's scores (score_summaries): a page reads 10,000 summaries per measure, not every
-- per-query score. rank is leaderboard.sql's competition rank (values equal to 12 decimals share
-- one) over every run of the board, filtered or not: it never depends on the page or the filter;
-- a run whose primary value is null or NaN is unranked, as leaderboard.sql leaves it.
-- Order: the sort key (a measure's at 12 decimals; a name's with ASCII letters case folded; nulls
-- last either way), then the board's rank (runs equal on the key keep the board's order, as the
-- reports' pages sort: a walk's P@10 of 348/430, equal but for the last bits of a sum, put rank 4
-- before rank 2), then run name (byte order): a total order, so pages never overlap or skip a run. total: the runs the filter keeps; board_runs: every run of the
-- board; top_run: the rank-1 run (first by name among equals), the default baseline;
-- systems_shown: 1 when a run of the board has a system other than its name (the page shows the
-- System column); best_high / best_low: each measure's highest and lowest value over the board.
with board as (
    select
        r.run_id,
        r.name as run,
        coalesce(r.system, r.name) as system,
        r.file_created_at as run_date,
        -- a NaN mean (trec_eval's nan: a per-query value undefined) is no value: unranked, sorted last
        round(nullif(p.value, cast('nan' as double)), 12) as primary_value,
        coalesce(p.queries, 0) as primary_queries,
        round(nullif(k.value, cast('nan' as double)), 12) as sort_value
    from runs as r
    inner join report_runs as o on o.run_id = r.run_id
    left join report_values as p
        on p.run_id = r.run_id
       and p.position = 0
    left join report_values as k
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
        -- names sort with ASCII letters case folded (bm25_march beside BM25, not after every capital),
        -- by translate, which folds alike on both engines (lower() on PostgreSQL's "C" columns folds
        -- ASCII only, DuckDB's every script); run name breaks ties, byte order
        case cast($sort_kind as varchar)
            when 'run' then translate(run, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
            when 'system' then translate(system, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
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
        rank asc nulls last,
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
                rank asc nulls last,
                run
        ) as page_position
    from paged
),

bests as (
    select
        position,
        max(nullif(value, cast('nan' as double))) as best_high,
        min(nullif(value, cast('nan' as double))) as best_low
    from report_values
    group by position
),

page_values as (
    select v.*
    from report_values as v
    inner join numbered as n on n.run_id = v.run_id
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
    left join page_values as v
        on v.run_id = n.run_id
       and v.position = w.position
    left join bests as b on b.position = w.position
    cross join (select query_count from qrels_sets where qrels_set_id = $qrels_set_id) as q
    order by n.page_position, w.position
)

select * from final
