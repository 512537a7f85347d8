-- stage_qrels (from line mode): a validated qrels file's judgments, typed, as every later ingest
-- step reads them.
-- Grain: one row per data line. Inputs: stage_fields, already checked by qrels_problems.sql (or
-- subtopic_qrels_problems.sql: insert_subtopic_qrels.sql reads stage_fields itself, and
-- insert_qrels_set.sql counts this view's queries and lines).
-- trec_eval: 3-field lines are `qid docid grade`, 4-field lines `qid iter docid grade`: the doc is
-- always the next-to-last field and the grade the last.
create or replace temp view stage_qrels as
select
    fields[1] as query_id,
    fields[field_count - 1] as doc_id,
    cast(fields[field_count] as integer) as grade
from stage_fields
