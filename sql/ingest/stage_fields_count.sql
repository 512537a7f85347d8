-- stage_fields_count: how many data lines are staged in stage_fields.
-- Grain: one row. Inputs: stage_fields.
-- trec_eval: none (reading the staged file, before anything is stored).
select count(*) from stage_fields
