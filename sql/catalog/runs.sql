-- runs listing: the stored runs for `irw runs` and Warehouse.runs().
-- Grain: one row per run, oldest ingest first.
select
    name,
    system,
    tag,
    row_count as rows,
    query_count as queries,
    file_created_at as file_created,
    ingested_at,
    description
from runs
order by ingested_at, name
