-- judged_rows_of_run: links a newly ingested run to every stored qrels set (judged_run_rows).
-- Grain: one row per qrels set x judged retrieved document of run $run_id.
-- Inputs: run_rows (run $run_id, just inserted), qrels, $run_id.
-- trec_eval: ranks are run_rows.trec_rank, unchanged.
insert into judged_run_rows (qrels_set_id, run_id, query_id, doc_id, trec_rank)
select
    q.qrels_set_id,
    r.run_id,
    r.query_id,
    r.doc_id,
    r.trec_rank
from run_rows as r
inner join qrels as q
    on q.query_id = r.query_id
   and q.doc_id = r.doc_id
where r.run_id = $run_id
