-- stage_run (from the column reader): a run's rows, typed, as every later ingest step reads them.
-- Grain: one row per data line. Inputs: stage_run_columns, found clean by columns_clean.sql
-- (so every score cast there succeeded). The tag is the first data line's, checked on every line.
-- trec_eval: none (a view of the staged rows as the column reader typed them).
create or replace temp view stage_run as
select
    query_id,
    doc_id,
    rank_given,
    score
from stage_run_columns
