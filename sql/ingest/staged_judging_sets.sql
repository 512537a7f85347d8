-- staged_judging_sets: the stored qrels sets that judge a document a staged run retrieved, for
-- batch naming (warehouse/ingestion/batch.py: two runs whose documents sets of different
-- collections judge are of different collections, whatever their query ids; the judging rule,
-- catalog/judging_rule.sql, reads the same evidence once the run is stored).
-- Grain: one row per qrels set. Inputs: the view stage_run, qrels (the warehouse's own: read where
-- the warehouse stages its files itself, DuckDB's; a server warehouse's qrels are not local).
-- trec_eval: none (naming only).
select distinct q.qrels_set_id
from stage_run as s
inner join qrels as q
    on q.query_id = s.query_id
   and q.doc_id = s.doc_id
