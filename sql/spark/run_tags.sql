-- spark run tags: the run tags (6th field) of each run file, with the first and last line holding
-- each, as warehouse/ingestion/files.py's staged_tag reads them (trec_eval prints the last line's tag as
-- runid; irw's rules refuse a file with two tags). Spark SQL.
-- Grain: one row per file x tag. Inputs: irw_lines.
-- trec_eval: the runid is a file's last data line's tag; last_line lets staged_tag pick it.
select
    file,
    fields[5] as tag,
    min(line_no) as first_line,
    max(line_no) as last_line
from irw_lines
where field_count >= 6
group by file, fields[5]
