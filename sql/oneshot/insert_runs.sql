-- insert_runs: the runs of the files staged by stage_runs.sql, one per file given (a file given
-- twice is two runs), as sql/ingest/insert_run.sql stores one.
-- Grain: one row per run given.
-- Inputs: oneshot_runs (position, name, file_id, tag, source_path, run_date, date_source).
-- trec_eval: the runid printed is the tag (every line's, as the files are clean).
insert into runs (name, system, tag, description, parameters, ir_metadata, source_path, sha256,
                  file_created_at, date_source, row_count, query_count)
select
    name,
    name as system,
    tag,
    cast(null as varchar) as description,
    cast(map() as map(varchar, varchar)) as parameters,
    cast(null as varchar) as ir_metadata,
    source_path,
    '' as sha256,
    run_date as file_created_at,
    date_source,
    0 as row_count,
    0 as query_count
from oneshot_runs
order by position
