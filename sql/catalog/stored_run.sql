-- stored_run: what ingest needs to know of a stored run of a name (is it these bytes?).
-- Grain: one row, or none. Inputs: runs, $name.
select run_id, sha256, row_count, query_count
from runs
where name = $name
