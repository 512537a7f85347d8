-- drop_stage_qrels_columns: the column reader's table, dropped when it did not take the file cleanly (line mode
-- follows: warehouse/ingestion/files.py, _stage_columns).
-- Grain: none (a statement). Inputs: stage_qrels_columns.
-- trec_eval: none (reading the staged file, before anything is stored).
drop table if exists stage_qrels_columns
