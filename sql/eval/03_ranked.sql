-- eval_ranked: every retrieved document of the runs under evaluation, in trec_eval's order.
-- Grain: one row per run x query x retrieved doc, for queries that the qrels judge.
-- Inputs: run_rows, eval_qrels, eval_query_stats, $run_ids, $float32 (trec_eval 9.0.8 compares
-- scores as 32-bit floats; 10.0 as doubles), $judged_only (-J), $depth (-M).
-- trec_eval: ranks come from sorting by score descending, then docid descending in byte order;
-- the rank column of the file is never used. -J drops unjudged documents before ranking; -M keeps
-- the first N documents after it. Queries only in the run are ignored here (counted elsewhere).
create or replace temp table eval_ranked as
with in_scope as (
    select
        rr.run_id,
        rr.query_id,
        rr.doc_id,
        case when $float32 then cast(cast(rr.score as float) as double) else rr.score end as sort_score,
        q.grade,
        coalesce(q.is_rel, false) as is_rel,
        coalesce(q.is_nonrel, false) as is_nonrel
    from run_rows as rr
    inner join eval_query_stats as s
        on s.query_id = rr.query_id
    left join eval_qrels as q
        on q.query_id = rr.query_id
       and q.doc_id = rr.doc_id
    where rr.run_id in (select unnest($run_ids))
      and (not $judged_only or q.grade is not null)
),

ranked as (
    select
        run_id,
        query_id,
        doc_id,
        grade,
        is_rel,
        is_nonrel,
        row_number() over (
            partition by run_id, query_id
            order by sort_score desc, doc_id desc
        ) as rank
    from in_scope
),

final as (
    select *
    from ranked
    where rank <= $depth
)

select * from final
