-- delete_unjudged_run_rows: keeps only the judged rows of run $run_id, after insert_run_rows.sql
-- ranked them all, in a warehouse that exists to evaluate files once (warehouse/ingest.py:
-- judged_rows_only, when the qrels judge too many documents per query for
-- insert_run_rows_by_counting.sql's counting to pay).
-- Grain: deletes run rows. Inputs: run_rows, qrels, $run_id.
delete from run_rows as r
where r.run_id = $run_id
  and not exists (select 1 from qrels as q where q.query_id = r.query_id and q.doc_id = r.doc_id)
