-- judged_rows_against_link_qrels: a staged run's judged rows, joined where the run was staged
-- against the server's judgments of its queries (link_qrels, from qrels_of_link_queries.sql), under
-- the run's id on the server: the rows link_judged_rows.sql would insert there for it.
-- Grain: one row per qrels set x retrieved document that qrels set judges, of run $source_id.
-- Inputs: run_rows, link_qrels (qrels_set_id, query_id, doc_id: a temporary table), $source_id
-- (the run's id here), $new_id (its id on the server).
-- trec_eval: ranks are run_rows.trec_rank, unchanged; the join is link_judged_rows.sql's.
-- In rank order within each query: the server stores them in that order, so an evaluation reads
-- a batch's judged rows (sql/eval/03_ranked_float32.sql, by the index of qrels set and run) already
-- in the order of its running counts (05_judged.sql), and PostgreSQL's sort of them finds its input
-- sorted (0.4 instead of 1.0 s a batch of 1M run rows).
select
    q.qrels_set_id,
    $new_id as run_id,
    r.query_id,
    r.doc_id,
    r.trec_rank
from run_rows as r
inner join link_qrels as q
    on q.query_id = r.query_id
   and q.doc_id = r.doc_id
where r.run_id = $source_id
order by q.qrels_set_id, r.query_id, r.trec_rank
