-- insert_qrels: copies a validated staged qrels file into qrels under $qrels_set_id.
-- Grain: one row per (query, doc). Inputs: the view stage_qrels (stage_qrels_from_columns.sql or
-- stage_qrels_from_fields.sql: the same rows either way).
insert into qrels (qrels_set_id, query_id, doc_id, grade)
select
    $qrels_set_id as qrels_set_id,
    query_id,
    doc_id,
    grade
from stage_qrels
