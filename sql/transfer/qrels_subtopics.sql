-- qrels_subtopics: source's qrels_subtopics rows of one qrels set, to be sent to target (warehouse/store/transfer.py, _move_rows) with
-- the target's id in place of the source's.
-- Grain: one row per row of qrels_subtopics keyed by the qrels set. Inputs: qrels_subtopics, $source_id (the source's qrels_set_id),
-- $new_id (the target's).
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select $new_id as qrels_set_id, query_id, subtopic, doc_id, grade from qrels_subtopics where qrels_set_id = $source_id
