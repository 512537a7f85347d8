-- qrels_of_link_queries: the stored judgments of the queries a run being sent answers, read from a
-- server warehouse so that the run's judged rows can be linked where the run was staged
-- (warehouse/store/transfer.py, ship_run with link_in_source).
-- Grain: one row per qrels set x query x judged document, for the queries in $query_ids.
-- Inputs: qrels, $query_ids (the run's query ids).
-- trec_eval: none; the judged rows linked from these are exactly link_judged_rows.sql's.
select
    q.qrels_set_id,
    q.query_id,
    q.doc_id
from qrels as q
where q.query_id in (select unnest($query_ids))
