-- Schema version 4: judged_run_rows, the run rows each stored qrels set judges, kept at ingest.
-- Grain: one row per qrels set x run x retrieved document that qrels set judges.
-- Inputs: written by warehouse/ingestion/files.py (sql/ingest/link_judged_rows.sql when a run or a qrels
-- set arrives), removed with either (warehouse/store/catalog.py);
-- this migration fills it for the runs and qrels already stored.
-- Why: every measure reads only the judged documents of a run, at their ranks (see
-- sql/eval/03_ranked_float32.sql). Finding them meant joining all of a run's rows with the qrels on
-- every evaluation: 0.26 s of a 0.44 s evaluation of a 7M-line run, for ~10k rows. The join is now
-- made once, when the run or the qrels set is ingested.
-- trec_eval: trec_rank is run_rows.trec_rank (trec_eval 9.0.8's order); --compat 10 re-sorts run_rows.
create table judged_run_rows (
    qrels_set_id    integer not null,
    run_id          integer not null,
    query_id        varchar not null,
    doc_id          varchar not null,
    trec_rank       bigint not null
);

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
   and q.doc_id = r.doc_id;
