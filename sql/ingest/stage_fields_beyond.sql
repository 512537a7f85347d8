-- stage_fields_beyond: how many staged data lines are past line $window (line mode reads a file's
-- head a window at a time: warehouse/ingestion/files.py, _refuse_by_head).
-- Grain: one row. Inputs: stage_fields, $window.
-- trec_eval: none (reading the staged file, before anything is stored).
select count(*) from stage_fields where line_no > $window
