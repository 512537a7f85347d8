-- runs listing: the stored runs for `irw runs` and Warehouse.runs().
-- Grain: one row per run, oldest ingest first.
-- date is the run's date (runs.file_created_at) and date_source where it came from: '--date',
-- 'ir_metadata' or 'file mtime' (schema 007).
select
    name,
    system,
    tag,
    row_count as rows,
    query_count as queries,
    file_created_at as date,
    date_source,
    ingested_at,
    description
from runs
order by ingested_at, name
