-- swap_facts_run: what the swapped-file rule needs of a file given as a run (warehouse/ingestion/files.py,
-- _swap_facts, refuse_if_swapped): the field count of the first data line after $after (the
-- header's line, or 0), whether that line ends in an integer, and the share of the lines after
-- $after that look like the other kind's: qrels lines (3 or 4 fields).
-- Grain: one row. Inputs: stage_fields (ingest/stage_fields.sql), $after.
-- trec_eval: none (reading the staged file, before anything is stored).
select arg_min(field_count, line_no), arg_min(regexp_full_match(fields[-1], '[+-]?[0-9]+'), line_no), count(*) filter (where field_count in (3, 4)) / count(*) from stage_fields where line_no > $after
