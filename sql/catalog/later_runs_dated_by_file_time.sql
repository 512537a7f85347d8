-- later runs dated by their files' modification time: the stored runs of one system dated after a
-- date only because their file was last written then, for the note of a run dated by its folder,
-- header or --date (a night's run ingested after the published runs of its system, whose copies
-- are dated the day they were copied: history and the systems table would take those as the
-- system's latest run; warehouse/ingestion/batch.py, _later_by_file_time).
-- Grain: one row per such run, latest first. Inputs: runs; $system (a run's system, or its name where
-- it has none, as the reports read it), $run_id (the run just stored, left out), $after (its date).
-- trec_eval: none (catalog: which run the reports take as the system's latest).
select
    run_id,
    name,
    file_created_at
from runs
where coalesce(system, name) = $system
  and run_id <> $run_id
  and date_source = 'file mtime'
  and file_created_at > $after
order by file_created_at desc, name
