-- relstring: the judgments of the top documents of each evaluated query as a string (trec_eval's
-- relstring; per query only, not stored as a score).
-- Grain: one row per evaluated query of the (single) run under evaluation.
-- Inputs: eval_ranked, eval_run_queries, $width (10 by default).
-- trec_eval: one character per rank: the grade 0-9, '>' above 9, '-' unjudged, '.' for a negative
-- grade. Raw grades are shown; -l does not change them.
with top_ranks as (
    select
        query_id,
        rank,
        case
            when grade is null then '-'
            when grade < 0 then '.'
            when grade > 9 then '>'
            else cast(grade as varchar)
        end as mark
    from eval_ranked
    where rank <= $width
),

final as (
    select
        q.query_id,
        coalesce(string_agg(t.mark, '' order by t.rank), '') as relstring
    from eval_run_queries as q
    left join top_ranks as t on t.query_id = q.query_id
    group by q.query_id
)

select * from final
