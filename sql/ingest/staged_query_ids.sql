-- staged_query_ids: the queries a staged run answers, for batch naming (warehouse/ingestion/batch.py tells a
-- folder of one collection's runs from a folder of one system's runs by whether its files answer
-- the same queries).
-- Grain: one row per query id. Inputs: the view stage_run (sql/ingest/stage_run_from_*.sql).
-- trec_eval: none (naming only).
select distinct query_id from stage_run
