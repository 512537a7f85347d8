-- qrels_layout: the field count (3 or 4) of a qrels file's lines, set by the first line that has
-- one (4 when none does); a malformed first line is then reported on its own instead of making
-- every good line "differ from the first" (ingest/qrels_problems.sql's $field_count).
-- Grain: one row. Inputs: stage_fields.
-- trec_eval: reads 4 fields a line (query, iteration, document, grade); 3 (no iteration) is irw's.
select coalesce(min_by(field_count, line_no), 4) from stage_fields where field_count in (3, 4)
