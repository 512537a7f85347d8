-- relstring: the judgments of the top documents of each evaluated query as a string (trec_eval's
-- relstring; per query only, not stored as a score, printed by irw trec-eval -q).
-- Grain: one row per evaluated query of the (single) run under evaluation.
-- Inputs: run_rows, eval_qrels, eval_run_queries, $width (10 by default), $compat, $judged_only,
-- $depth (-M: trec_eval shows min(width, num_ret) documents).
-- trec_eval: one character per rank: the grade 0-9, '>' above 9, '-' unjudged, '.' for a negative
-- grade; raw grades are shown, -l does not change them. Ranks are trec_eval's (the stored 9.0.8
-- rank, or score as a double under --compat 10); under -J only judged, non-negative documents
-- count. eval_ranked holds judged documents only, so the unjudged ones are read from run_rows.
with ranked as (
    select
        rr.query_id,
        q.grade,
        case
            when $compat = 9 then rr.trec_rank
            else row_number() over (partition by rr.query_id order by rr.score desc, rr.doc_id desc)
        end as rank
    from run_rows as rr
    left join eval_qrels as q
        on q.query_id = rr.query_id
       and q.doc_id = rr.doc_id
    where rr.run_id in (select run_id from eval_run_queries)
      and (not $judged_only or q.grade >= 0)
),

top_ranks as (
    select
        query_id,
        row_number() over (partition by query_id order by rank) as position,
        case
            when grade is null then '-'
            when grade < 0 then '.'
            when grade > 9 then '>'
            else cast(grade as varchar)
        end as mark
    from ranked
),

final as (
    select
        q.query_id,
        coalesce(string_agg(t.mark, '' order by t.position), '') as relstring
    from eval_run_queries as q
    left join top_ranks as t
        on t.query_id = q.query_id
       and t.position <= least($width, $depth)
    group by q.query_id
)

select * from final
