-- eval_ranked (trec_eval 9.0.8 order): the retrieved documents the qrels judge, with their ranks.
-- Grain: one row per run x query x retrieved judged doc, within the depth.
-- Inputs: judged_run_rows (the judged rows, with trec_rank, linked at ingest), eval_qrels,
-- $qrels_set_id, $run_ids, $depth (-M).
-- trec_eval: ranks come from sorting by score (as a 32-bit float) descending, then docid
-- descending in byte order; the rank column of the file is never used. That order is stored at
-- ingest as trec_rank, so no sort happens here. -M keeps the first N documents; -J, when asked,
-- follows in 03b_judged_only.sql (trec_eval applies -M before -J).
-- Why judged documents only: every measure reads relevance at ranks, and an unjudged document is
-- non-relevant with gain 0; how many documents a query retrieved comes from run_queries. On a
-- 7M-line run with ~16k judgments this keeps ~16k rows instead of 7M, and since the join with the
-- qrels is made at ingest (sql/schema/004_judged_run_rows.sql), it reads only those rows.
drop table if exists eval_ranked;

create temp table eval_ranked as
with final as (
    select
        rr.run_id,
        rr.query_id,
        rr.doc_id,
        q.grade,
        q.is_rel,
        q.is_nonrel,
        rr.trec_rank as rank
    from judged_run_rows as rr
    inner join eval_qrels as q
        on q.query_id = rr.query_id
       and q.doc_id = rr.doc_id
    where rr.qrels_set_id = $qrels_set_id
      and rr.run_id in (select unnest($run_ids))
      and rr.trec_rank <= $depth
)

select * from final;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_ranked
