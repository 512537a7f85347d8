-- insert_run_rows: copies a validated staged run into run_rows under $run_id.
-- Grain: one row per (query, doc) of the file. Inputs: stage_fields (already checked by
-- run_problems.sql, so every cast here succeeds), $run_id.
insert into run_rows (run_id, query_id, doc_id, rank_given, score)
select
    $run_id as run_id,
    fields[1] as query_id,
    fields[3] as doc_id,
    try_cast(fields[4] as bigint) as rank_given,
    cast(fields[5] as double) as score
from stage_fields
