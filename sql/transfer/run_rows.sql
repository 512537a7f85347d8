-- run_rows: source's run_rows rows of one run, to be sent to target (warehouse/store/transfer.py, _move_rows) with
-- the target's id in place of the source's.
-- Grain: one row per row of run_rows keyed by the run. Inputs: run_rows, $source_id (the source's run_id),
-- $new_id (the target's).
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select $new_id as run_id, query_id, doc_id, rank_given, score, trec_rank from run_rows where run_id = $source_id
