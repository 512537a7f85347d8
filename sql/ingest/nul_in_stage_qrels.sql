-- nul_in_stage_qrels: how many staged lines hold NUL (U+0000) in their query or document id, which irw
-- stores on no engine (warehouse/ingestion/files.py, _refuse_nul).
-- Grain: one row. Inputs: stage_qrels (the staged file's view).
-- trec_eval: none (reading the staged file, before anything is stored).
select count(*) from stage_qrels where contains(query_id, chr(0)) or contains(doc_id, chr(0))
