-- spark first lines: each file's first data line and its count of data lines, for local ingest's
-- header rule (warehouse/ingestion/files.py's header_line: a first line of several fields none of which is a
-- number, BEIR's `query-id corpus-id score`, is refused by name). Spark SQL.
-- Grain: one row per file.
-- Inputs: irw_lines (text_lines.sql).
-- trec_eval: none (local ingest's header check, restated in Spark SQL).
select
    file,
    min(line_no) as line_no,
    min_by(fields, line_no) as fields,
    count(*) as lines
from irw_lines
where field_count > 0
group by file
