-- runs judging none retrieved: the runs none of whose retrieved documents the qrels set judges, for
-- the note `irw eval` prints on such a run (a run of another collection, or of other document ids,
-- scores 0 on every measure of relevance, silently).
-- Grain: one row per run of $run_ids whose rows the warehouse holds (a run evaluated on Spark
-- without its rows, runs.rows_stored false, has no judged rows to look at) and that has no judged
-- row, in name order.
-- Inputs: runs, judged_run_rows (the judged rows linked at ingest: only those are read, never
-- run_rows); $run_ids, $qrels_set_id.
-- trec_eval: gives such a run its zeros without a word; irw's numbers are the same, the note is
-- irw's own. Every retrieved document counts, whatever -M, -J or the relevance level.
-- Why not a count of each run's judged rows: only whether there is one matters, which PostgreSQL
-- answers with one probe of judged_run_rows_by_run per run, where the count read every judged row
-- of every run (3.6M rows for 1,000 runs: 0.6 s of a 1 s `irw eval` of stored scores).
with final as (
    select r.name as run
    from runs as r
    where r.run_id in (select unnest($run_ids))
      and coalesce(r.rows_stored, true)
      and not exists (
          select 1
          from judged_run_rows as j
          where j.qrels_set_id = $qrels_set_id
            and j.run_id = r.run_id
      )
)

select * from final
order by run
