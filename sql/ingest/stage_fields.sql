-- stage_fields: the data lines of one input file, split into whitespace-separated fields.
-- Grain: one row per non-blank, non-comment line, numbered as an editor numbers lines.
-- Inputs: $path (a local file; .gz and .zst are decompressed by DuckDB), $compression, the macros
-- of line_mode.sql (how a line is read and split, and what a comment is), $line_limit (NULL: every
-- line; else the file's first $line_limit lines, and line $line_limit + 1 whatever it holds when
-- the file has it, which tells warehouse/ingestion/files.py (_stage_lines) that the file goes on; the read
-- stops there, so a file checked by windows is never read past the window it is refused in).
-- trec_eval: none (staging; the split into fields is line_mode.sql's, see its trec_eval line).
-- row_number() over () keeps file order (a single-file scan preserves insertion order) and counts
-- blank lines, which read as NULL, so line numbers match the file.
-- Measured on 7M lines: reading and splitting in one statement avoids materializing the raw lines
-- (2.3 s).
create or replace temp table stage_fields as
with split as materialized (
    -- numbering and splitting in one step, materialized before the filter below: written as
    -- separate CTEs, or filtered in the same step, DuckDB evaluated the split twice (5.6 s
    -- instead of 2.9 s on 7M lines)
    select
        cast(row_number() over () as bigint) as line_no,
        trec_fields(line) as fields
    from trec_lines($path, $compression)
    limit $line_limit + 1
),

final as (
    select
        line_no,
        fields,
        len(fields) as field_count
    from split
    where is_trec_data(fields) or line_no > $line_limit
)

select * from final
