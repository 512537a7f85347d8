-- eval_ranked (trec_eval 10.0 order): the retrieved documents the qrels judge, with their ranks.
-- Grain: one row per run x query x retrieved judged doc, within the depth.
-- Inputs: run_rows, eval_qrels, eval_query_stats, $run_ids, $depth (-M).
-- trec_eval 10.0 keeps scores as doubles: documents whose scores differ only beyond float32
-- precision keep their order instead of tying, so the stored 9.0.8 rank cannot be reused and the
-- run rows of judged queries are sorted here: score descending, then docid descending in byte
-- order. Only judged documents are kept afterwards (see 03_ranked_float32.sql).
drop table if exists eval_ranked;

create temp table eval_ranked as
with in_scope as (
    select
        rr.run_id,
        rr.query_id,
        rr.doc_id,
        rr.score
    from run_rows as rr
    inner join eval_query_stats as s
        on s.query_id = rr.query_id
    where rr.run_id in (select unnest($run_ids))
),

ranked as (
    select
        run_id,
        query_id,
        doc_id,
        row_number() over (partition by run_id, query_id order by score desc, doc_id desc) as rank
    from in_scope
),

final as (
    select
        r.run_id,
        r.query_id,
        r.doc_id,
        q.grade,
        q.is_rel,
        q.is_nonrel,
        r.rank
    from ranked as r
    inner join eval_qrels as q
        on q.query_id = r.query_id
       and q.doc_id = r.doc_id
    where r.rank <= $depth
)

select * from final;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_ranked
