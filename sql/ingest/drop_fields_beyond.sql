-- drop_fields_beyond: the staged data lines past line $window, dropped so that the window alone
-- is judged (warehouse/ingestion/files.py, _refuse_by_head).
-- Grain: none (a statement). Inputs: stage_fields, $window.
-- trec_eval: none (reading the staged file, before anything is stored).
delete from stage_fields where line_no > $window
