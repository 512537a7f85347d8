-- link_judged_rows: the judged rows of the runs stored by insert_run_rows.sql, as
-- sql/ingest/link_judged_rows.sql links one run's (every qrels set's judgments of its rows).
-- Grain: one row per qrels set x run x judged (query, doc) of the runs of oneshot_runs.
-- Inputs: run_rows, qrels, runs, oneshot_runs (name): only this chunk's runs, as runs stored before
-- (another chunk, or a file ingested alone) are linked already.
insert into judged_run_rows (qrels_set_id, run_id, query_id, doc_id, trec_rank)
select
    q.qrels_set_id,
    r.run_id,
    r.query_id,
    r.doc_id,
    r.trec_rank
from run_rows as r
inner join qrels as q
    on q.query_id = r.query_id
   and q.doc_id = r.doc_id
where r.run_id in (select run_id from runs where name in (select name from oneshot_runs))
