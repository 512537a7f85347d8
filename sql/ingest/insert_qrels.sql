-- insert_qrels: copies a validated staged qrels file into qrels under $qrels_set_id.
-- Grain: one row per (query, doc). Inputs: stage_fields (checked by qrels_problems.sql).
-- 3-field lines are `qid docid grade`, 4-field lines `qid iter docid grade`: the doc is always
-- the next-to-last field and the grade the last.
insert into qrels (qrels_set_id, query_id, doc_id, grade)
select
    $qrels_set_id as qrels_set_id,
    fields[1] as query_id,
    fields[field_count - 1] as doc_id,
    cast(fields[field_count] as integer) as grade
from stage_fields
