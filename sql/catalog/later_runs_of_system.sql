-- later runs of a system: the stored runs of one system dated after one of its runs and no later
-- than a date, for the note of a night whose file goes back to that run's bytes (a rollback:
-- warehouse/ingestion/batch.py, _same_bytes).
-- Grain: one row per such run, latest first (then last ingested), with its content's sha256 (the
-- file's, or a compressed file's text's, as stored_run.sql). Inputs: runs; $system (a run's
-- system, or its name where it has none, as the reports read it), $run_id (the run gone back to,
-- left out), $after, $until (dates).
-- trec_eval: none (catalog: which run the reports take as the system's latest).
select
    run_id,
    name,
    file_created_at,
    coalesce(text_sha256, sha256) as content_sha256
from runs
where coalesce(system, name) = $system
  and run_id <> $run_id
  and file_created_at > $after
  and file_created_at <= $until
order by file_created_at desc, ingested_at desc, run_id desc
