-- relstring: the judgments of the top documents of each evaluated query as a string (trec_eval's
-- relstring; per query only, not stored as a score, printed by irw trec-eval -q).
-- Grain: one row per run x evaluated query of the runs under evaluation (eval_run_queries).
-- Inputs: run_rows, eval_qrels, eval_run_queries, $width (10 by default), $compat, $judged_only,
-- $depth (-M: trec_eval shows min(width, num_ret) documents).
-- trec_eval: one character per rank: the grade 0-9, '>' above 9, '-' unjudged, '.' for a negative
-- grade; raw grades are shown, -l does not change them. Ranks are trec_eval's (the stored 9.0.8
-- rank, or score as a double under --compat 10); under -J only judged, non-negative documents
-- count, numbered in rank order after -M has cut the ranking.
-- Why judged rows suffice under 9.0.8's order: a query's stored ranks number its documents 1, 2,
-- ... num_ret, so every position up to min(width, num_ret) holds a document, and one no judged
-- document holds is an unjudged one ('-'). irw trec-eval -q then keeps only a run's judged rows,
-- as without -q (warehouse/ingestion/files.py judged_rows_only), instead of ranking and storing every row
-- (7M-line run: the sort and this file's join over every row cost ~1.5 s). --compat 10 ranks
-- every row by its double score here, so it reads them all.
with ranked as (
    select
        rr.run_id,
        rr.query_id,
        q.grade,
        case
            when $compat = 9 then rr.trec_rank
            else row_number() over (partition by rr.run_id, rr.query_id order by rr.score desc, rr.doc_id desc)
        end as rank
    from run_rows as rr
    left join eval_qrels as q
        on q.query_id = rr.query_id
       and q.doc_id = rr.doc_id
    where rr.run_id in (select run_id from eval_run_queries)
      and (not $judged_only or q.grade >= 0)
      and ($compat <> 9 or q.grade is not null)
),

positioned as (
    -- without -J the position is the rank (under --compat 10 every row was ranked, so ranks run
    -- 1, 2, ... too); under -J the judged documents within the depth are numbered in rank order
    -- (trec_eval applies -M first, then -J: -M 10 -J shows the judged ones of the top 10 only)
    select
        run_id,
        query_id,
        grade,
        case
            when $judged_only then row_number() over (partition by run_id, query_id order by rank)
            else rank
        end as position
    from ranked
    where rank <= $depth
),

slots as (
    -- the positions shown: without -J every retrieved one up to the width (num_ret is already
    -- within the depth), judged or not; under -J each judged one up to the width and the depth
    select
        e.run_id,
        e.query_id,
        g.position
    from eval_run_queries as e
    cross join generate_series(1, $width) as g(position)
    where not $judged_only
      and g.position <= e.num_ret
    union all
    select
        run_id,
        query_id,
        position
    from positioned
    where $judged_only
      and position <= least($width, $depth)
),

shown as (
    select
        s.run_id,
        s.query_id,
        s.position,
        case
            when p.query_id is null or p.grade is null then '-'
            when p.grade < 0 then '.'
            when p.grade > 9 then '>'
            else cast(p.grade as varchar)
        end as mark
    from slots as s
    left join positioned as p
        on p.run_id = s.run_id
       and p.query_id = s.query_id
       and p.position = s.position
),

final as (
    select
        e.run_id,
        e.query_id,
        coalesce(string_agg(sh.mark, '' order by sh.position), '') as relstring
    from eval_run_queries as e
    left join shown as sh
        on sh.run_id = e.run_id
       and sh.query_id = e.query_id
    group by e.run_id, e.query_id
)

select * from final
