-- judged_rows: the rule of which run rows a qrels set judges, as judged_run_rows keeps them:
-- every row of a run whose (query, doc) the set judges, with the rank evaluation reads. Composed
-- (warehouse/resources.py read_sql) by ingest/link_judged_rows.sql (one run, or one qrels set) and
-- oneshot/link_judged_rows.sql (the runs of a one-shot chunk), which choose the rows to link.
-- Grain: one row per qrels set x run x retrieved document that qrels set judges.
-- Inputs: run_rows, qrels.
-- trec_eval: ranks are run_rows.trec_rank, unchanged.
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
