-- run_metadata: what the warehouse knows about each run a report shows.
-- Grain: one row per requested run, in the order of report_runs.run_position.
-- Inputs: runs; report_runs (temporary: run_id, run_position; warehouse/reports/scope.py).
-- trec_eval: none (the runs' metadata; no score is read).
-- run_date is the run's date recorded at ingest and date_source where it came from ('--date',
-- 'ir_metadata', 'folder name' or 'file mtime'; schema 007); the ingest time itself is left out so a report
-- depends only on the data. rows_stored is false for a run evaluated on Spark and stored without
-- its rows (schema 011): its page shows its scores, not the ranks of its documents.
with final as (
    select
        r.run_id,
        r.name as run,
        coalesce(r.system, r.name) as system,
        r.tag,
        r.description,
        r.parameters,
        r.ir_metadata,
        r.source_path,
        r.sha256,
        r.file_created_at as run_date,
        r.date_source,
        r.row_count,
        r.query_count,
        coalesce(r.rows_stored, true) as rows_stored
    from runs as r
    inner join report_runs as o on o.run_id = r.run_id
    order by o.run_position
)

select * from final
