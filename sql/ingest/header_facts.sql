-- header_facts: what the header rule needs of a staged file (warehouse/ingestion/files.py, header_line):
-- its first data line's number and fields, and its count of data lines.
-- Grain: one row. Inputs: stage_fields (ingest/stage_fields.sql).
-- trec_eval: none (reading the staged file, before anything is stored).
select min(line_no), arg_min(fields, line_no), count(*) from stage_fields
