-- stage_lines: every physical line of one input file, numbered from 1 as an editor numbers them.
-- Grain: one row per line of the file (blank lines included, as NULL), so errors can name file:line.
-- Inputs: $path (a local file; .gz and .zst are decompressed by DuckDB), $compression.
-- Why line mode: DuckDB's CSV sniffer silently merges TREC lines; one VARCHAR column with a delimiter
-- that never occurs (chr(1)), no quoting and no sniffing reads each line exactly as written.
-- strict_mode: a line holding chr(1) reads as two columns; strict mode makes that an error naming the
-- line (warehouse/ingest.py words it) instead of silently dropping the rest of the line.
-- trec_eval splits on any run of spaces or tabs; that happens in stage_fields.sql.
create or replace temp table stage_lines as
with raw_lines as (
    select line
    from read_csv(
        $path,
        columns = {'line': 'VARCHAR'},
        delim = chr(1),
        quote = '',
        escape = '',
        header = false,
        auto_detect = false,
        strict_mode = true,
        compression = $compression
    )
),

final as (
    -- row_number() over () keeps file order: a single-file scan preserves insertion order.
    select
        cast(row_number() over () as bigint) as line_no,
        rtrim(line, chr(13)) as line
    from raw_lines
)

select * from final
