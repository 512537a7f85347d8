-- run_queries: source's run_queries rows of one run, to be sent to target (warehouse/store/transfer.py, _move_rows) with
-- the target's id in place of the source's.
-- Grain: one row per row of run_queries keyed by the run. Inputs: run_queries, $source_id (the source's run_id),
-- $new_id (the target's).
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select $new_id as run_id, query_id, num_ret from run_queries where run_id = $source_id
