-- preference_judgments: source's preference_judgments rows of one qrels set, to be sent to target (warehouse/store/transfer.py, _move_rows) with
-- the target's id in place of the source's.
-- Grain: one row per row of preference_judgments keyed by the qrels set. Inputs: preference_judgments, $source_id (the source's qrels_set_id),
-- $new_id (the target's).
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select $new_id as qrels_set_id, query_id, jg, jsg, doc_id, rel_level from preference_judgments where qrels_set_id = $source_id
