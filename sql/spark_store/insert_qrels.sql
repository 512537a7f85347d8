-- insert_qrels: Spark's validated judgments (an Arrow table registered as incoming) into the staged
-- qrels set.
-- Grain: one row per judgment. Inputs: incoming (query_id, doc_id, grade), $qrels_set_id.
-- trec_eval: none (what Spark computed is stored as it is).
insert into qrels (qrels_set_id, query_id, doc_id, grade)
select $qrels_set_id, query_id, doc_id, grade from incoming
