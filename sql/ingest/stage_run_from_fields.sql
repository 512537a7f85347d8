-- stage_run (from line mode): a validated run's rows, typed, as every later ingest step reads them.
-- Grain: one row per data line. Inputs: stage_fields, already checked by run_problems.sql.
-- trec_eval: none (a view of the checked staged lines, typed as later ingest steps read them).
-- Every score casts; the rank casts when strict (irw ingest) and may be NULL in trec_eval mode,
-- which does not read it. The tag is not here: run_tags.sql reads it with its lines.
create or replace temp view stage_run as
select
    fields[1] as query_id,
    fields[3] as doc_id,
    try_cast(fields[4] as bigint) as rank_given,
    cast(fields[5] as double) as score
from stage_fields
