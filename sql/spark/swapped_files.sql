-- spark swapped files: the files that look like the other kind of TREC file, by local ingest's
-- rule (warehouse/ingestion/files.py's _refuse_swapped): qrels whose first data line and at least half of
-- all have 6 or more fields (a run), or a run whose first data line and at least half have 3 or 4
-- fields ending in an integer (qrels). Spark SQL; warehouse/engines/spark.py raises local ingest's error.
-- Grain: one row per file where the share is reached (the first line is judged in Python).
-- Inputs: irw_lines (text_lines.sql), :kind ('run' or 'qrels': what the files were given as).
-- trec_eval: none (local ingest's check for swapped files, restated in Spark SQL).
with per_file as (
    select
        file,
        min_by(field_count, line_no) as first_count,
        min_by(element_at(fields, -1) rlike '^[+-]?[0-9]+$', line_no) as first_grade,
        avg(case
            when :kind = 'run' and field_count in (3, 4) then 1.0
            when :kind = 'qrels' and field_count >= 6 then 1.0
            else 0.0
        end) as share
    from irw_lines
    where field_count > 0
    group by file
)

select
    file,
    first_count,
    first_grade
from per_file
where share >= 0.5
