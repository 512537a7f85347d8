-- insert_qrels: copies a validated staged qrels file into qrels under $qrels_set_id.
-- Grain: one row per (query, doc). Inputs: the view stage_qrels (stage_qrels_from_columns.sql or
-- stage_qrels_from_fields.sql: the same rows either way).
-- trec_eval: a copy, grades as given: a (query, doc) judged twice, on which trec_eval stops
-- (form_res_rels.c, "duplicate docs"), was refused before (qrels_problems.sql).
insert into qrels (qrels_set_id, query_id, doc_id, grade)
select
    $qrels_set_id as qrels_set_id,
    query_id,
    doc_id,
    grade
from stage_qrels
