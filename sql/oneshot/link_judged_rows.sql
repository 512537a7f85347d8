-- link_judged_rows: the judged rows of the runs stored by insert_run_rows.sql, by the rule
-- sql/ingest/judged_rows.sql (composed here) that sql/ingest/link_judged_rows.sql links one run's by.
-- Grain: one row per qrels set x run x judged (query, doc) of the runs of oneshot_runs.
-- Inputs: run_rows, qrels (through judged_rows.sql), runs, oneshot_runs (name): only this chunk's runs, as runs stored before
-- (another chunk, or a file ingested alone) are linked already.
-- trec_eval: ranks are run_rows.trec_rank, unchanged (judged_rows.sql's rule, as for one run).
insert into judged_run_rows (qrels_set_id, run_id, query_id, doc_id, trec_rank)
select
    j.qrels_set_id,
    j.run_id,
    j.query_id,
    j.doc_id,
    j.trec_rank
from "ingest/judged_rows.sql" as j
where j.run_id in (select run_id from runs where name in (select name from oneshot_runs))
