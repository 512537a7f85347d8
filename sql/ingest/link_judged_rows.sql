-- link_judged_rows: adds to judged_run_rows the run rows a qrels set judges, for a newly ingested
-- run ($run_id, every stored qrels set) or a newly ingested qrels set ($qrels_set_id, every
-- stored run); the other parameter is NULL, meaning all.
-- Grain: one row per qrels set x run x retrieved document that qrels set judges.
-- Inputs: run_rows, qrels (through judged_rows.sql, the rule composed here), $run_id, $qrels_set_id.
-- trec_eval: ranks are run_rows.trec_rank, unchanged. DuckDB folds the NULL tests of bound
-- parameters, so the run_id filter still skips other runs' row groups (0.02 s for one run of 101).
-- The casts type a NULL for PostgreSQL, which cannot infer the type of a bare `$x is null`.
-- sql/schema/004_judged_run_rows.sql holds the same join for warehouses made before it: a
-- migration stays as it was written.
insert into judged_run_rows (qrels_set_id, run_id, query_id, doc_id, trec_rank)
select
    j.qrels_set_id,
    j.run_id,
    j.query_id,
    j.doc_id,
    j.trec_rank
from "ingest/judged_rows.sql" as j
where (cast($run_id as integer) is null or j.run_id = $run_id)
  and (cast($qrels_set_id as integer) is null or j.qrels_set_id = $qrels_set_id)
