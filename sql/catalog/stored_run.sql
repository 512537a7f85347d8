-- stored_run: what ingest needs to know of a stored run of a name (is it these bytes? are its
-- rows here, or was it evaluated on Spark without them: schema 11?).
-- Grain: one row, or none. Inputs: runs, $name.
select run_id, sha256, row_count, query_count, coalesce(rows_stored, true) as rows_stored
from runs
where name = $name
