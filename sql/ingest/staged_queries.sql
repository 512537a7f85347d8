-- staged_queries: the queries a staged run answers and the documents it ranks first for each, for
-- batch naming (warehouse/ingestion/batch.py tells a folder of one collection's runs from a folder
-- of one system's runs by whether its files answer the same queries, and two collections that
-- number their queries alike, as BEIR's trec-covid and webis-touche2020 do, by the documents: two
-- runs of one collection rank some of the same documents first, two collections none).
-- Grain: one row per query id: query_id, top_documents (the ten of highest score, ties broken by
-- doc_id descending, as trec_eval orders them but for the score's float32 rounding: a sample for
-- comparing runs, no measure reads it). A top-n aggregate, no sort: ~0.1 s more than the distinct
-- query ids alone at 7M lines.
-- Inputs: the view stage_run (sql/ingest/stage_run_from_*.sql).
-- trec_eval: none (naming only).
select
    query_id,
    max_by(doc_id, (score, doc_id), 10) as top_documents
from stage_run
group by query_id
