-- staged_queries: the queries a staged run answers and the documents it ranks first for each, for
-- batch naming (warehouse/ingestion/batch.py tells a folder of one collection's runs from a folder
-- of one system's runs by whether its files answer the same queries, and two collections that
-- number their queries alike, as BEIR's trec-covid and webis-touche2020 do, by the documents: two
-- runs of one collection rank some of the same documents first, two collections none).
-- Grain: one row per query id: query_id, top_documents (the $top of highest score, 10).
-- A top-n aggregate, no sort: ~0.1-0.2 s more than the distinct query ids alone at 7M lines.
-- Inputs: the view stage_run (sql/ingest/stage_run_from_*.sql), $top.
-- trec_eval: its order, score as a 32-bit float descending, then doc_id descending, as trec_rank
-- (catalog/run_top_documents.sql reads a stored run's): a stored file and the same file staged
-- carry the same documents. No measure reads them.
select
    query_id,
    max_by(doc_id, (trec_float32(score), doc_id), $top) as top_documents
from stage_run
group by query_id
