-- drop_stage_fields: the fields of a file's lines, dropped once read (warehouse/ingestion/files.py).
-- Grain: none (a statement). Inputs: stage_fields.
-- trec_eval: none (reading the staged file, before anything is stored).
drop table if exists stage_fields
