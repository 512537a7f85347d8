-- stage_qrels (from the column reader): a qrels file's judgments, typed, as every later ingest
-- step reads them.
-- Grain: one row per data line. Inputs: stage_qrels_columns, found clean by
-- columns_clean.sql (so every grade cast there succeeded).
-- trec_eval: none (a view of the staged rows as the column reader typed them).
create or replace temp view stage_qrels as
select
    query_id,
    doc_id,
    grade
from stage_qrels_columns
