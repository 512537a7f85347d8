-- Schema version 7: where each run's date came from (runs.date_source).
-- Grain: one value per run, beside runs.file_created_at, which holds the run's date whatever its
-- source (the column keeps its name: the reports, `irw sql` queries users have saved and the
-- README's schema table all read it).
-- Inputs: written by warehouse/ingestion/files.py; values '--date' (given by the user: `irw ingest run
-- --date`, or date= in Python), 'ir_metadata' (the `date:` key of the run file's ir_metadata
-- header) and 'file mtime' (the file's modification time, the fallback).
-- trec_eval: none (a run's date; no measure reads it).
-- Why: runs copied together share one file time, so a history ordered by it means nothing unless
-- a reader can tell a recorded date from a file time. Runs stored before this version were dated
-- by their file time (created or modified), so they get 'file mtime'. Written to run again
-- (a test re-applies migrations from an earlier version): a source already set is kept.
alter table runs add column if not exists date_source varchar;

update runs
set date_source = 'file mtime'
where date_source is null
  and file_created_at is not null;
