-- swap_facts_prefs: what the other-format rule of a preference file needs (warehouse/ingestion/files.py,
-- _refuse_other_prefs_format): the field count of the first data line, and the share of data lines
-- with $other_count fields, the other preference format's (4: a qrels file, trec_eval -R
-- qrels_prefs; 5: -R prefs).
-- Grain: one row. Inputs: stage_fields (ingest/stage_fields.sql), $other_count.
-- trec_eval: none (reading the staged file, before anything is stored).
select
    arg_min(field_count, line_no) as first_field_count,
    cast(count(*) filter (where field_count = $other_count) as double) / count(*) as other_share
from stage_fields
