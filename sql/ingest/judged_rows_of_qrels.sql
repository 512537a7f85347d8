-- judged_rows_of_qrels: links a newly ingested qrels set to every stored run (judged_run_rows).
-- Grain: one row per run x retrieved document that qrels set $qrels_set_id judges.
-- Inputs: run_rows, qrels (set $qrels_set_id, just inserted), $qrels_set_id.
-- trec_eval: ranks are run_rows.trec_rank, unchanged.
insert into judged_run_rows (qrels_set_id, run_id, query_id, doc_id, trec_rank)
select
    q.qrels_set_id,
    r.run_id,
    r.query_id,
    r.doc_id,
    r.trec_rank
from qrels as q
inner join run_rows as r
    on r.query_id = q.query_id
   and r.doc_id = q.doc_id
where q.qrels_set_id = $qrels_set_id
