-- spark line problems: what local ingest refuses in the bytes of a line before it reads any field
-- (warehouse/ingestion/files.py's _line_problems and its read errors), one row per problem, with its
-- messages. Spark SQL, checked before the field rules (run_problems.sql, qrels_problems.sql), as
-- local ingest refuses such a file before reading its fields.
-- Grain: one row per (file, line, reason). Inputs: irw_lines (text_lines.sql's raw_problems).
-- trec_eval: none (local ingest's checks of a line's bytes, restated in Spark SQL).
-- As local ingest, which stops at the first bytes DuckDB cannot decode, only a file's first line
-- that is not UTF-8 is reported; every CR and U+0001 is.
with problems as (
    select
        file,
        line_no,
        reason,
        min(line_no) over (partition by file, reason) as first_line
    from irw_lines
    lateral view explode(raw_problems) as reason
),

final as (
    select
        file,
        line_no,
        reason
    from problems
    where reason <> 'bytes that are not valid UTF-8'
       or line_no = first_line
)

select * from final
