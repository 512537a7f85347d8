-- judged retrieved: per run, how many of its retrieved documents the qrels set judges, for the note
-- `irw eval` prints on a run none of whose retrieved documents is judged (a run of another
-- collection, or of other document ids, scores 0 on every measure of relevance, silently).
-- Grain: one row per run of $run_ids whose rows the warehouse holds (a run evaluated on Spark
-- without its rows, runs.rows_stored false, has no judged rows to count), in name order.
-- Inputs: runs, judged_run_rows (the judged rows linked at ingest: only those are read, never
-- run_rows); $run_ids, $qrels_set_id.
-- trec_eval: gives such a run its zeros without a word; irw's numbers are the same, the note is
-- irw's own. Every retrieved document counts, whatever -M, -J or the relevance level.
with judged_documents as (
    select
        run_id,
        count(*) as judged_documents
    from judged_run_rows
    where qrels_set_id = $qrels_set_id
      and run_id in (select unnest($run_ids))
    group by run_id
),

final as (
    select
        r.name as run,
        coalesce(d.judged_documents, 0) as judged_documents
    from runs as r
    left join judged_documents as d
        on d.run_id = r.run_id
    where r.run_id in (select unnest($run_ids))
      and coalesce(r.rows_stored, true)
)

select * from final
order by run
