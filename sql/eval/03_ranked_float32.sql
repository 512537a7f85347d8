-- eval_ranked (trec_eval 9.0.8 order): every retrieved document of the runs under evaluation.
-- Grain: one row per run x query x retrieved doc, for queries that the qrels judge.
-- Inputs: run_rows (trec_rank stored at ingest), eval_qrels, eval_query_stats, $run_ids, $depth (-M).
-- trec_eval: ranks come from sorting by score (as a 32-bit float) descending, then docid
-- descending in byte order; the rank column of the file is never used. That order is stored at
-- ingest as trec_rank, so no sort happens here. -M keeps the first N documents; -J, when asked,
-- follows in 03b_judged_only.sql (trec_eval applies -M before -J). Queries only in the run are
-- ignored here (counted by ignored_queries.sql).
create or replace temp table eval_ranked as
with in_scope as (
    select
        rr.run_id,
        rr.query_id,
        rr.doc_id,
        rr.trec_rank as rank
    from run_rows as rr
    inner join eval_query_stats as s
        on s.query_id = rr.query_id
    where rr.run_id in (select unnest($run_ids))
      and rr.trec_rank <= $depth
),

final as (
    select
        r.run_id,
        r.query_id,
        r.doc_id,
        q.grade,
        coalesce(q.is_rel, false) as is_rel,
        coalesce(q.is_nonrel, false) as is_nonrel,
        r.rank
    from in_scope as r
    left join eval_qrels as q
        on q.query_id = r.query_id
       and q.doc_id = r.doc_id
)

select * from final
