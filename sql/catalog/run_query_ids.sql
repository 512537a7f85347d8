-- run_query_ids: the queries a stored run answers, for batch naming (as staged_query_ids.sql for
-- a file whose bytes the warehouse holds, which is not staged again).
-- Grain: one row per query id. Inputs: run_queries, $run_id.
-- trec_eval: none (naming only).
select query_id from run_queries where run_id = $run_id
