-- spark text lines: the data lines of TREC text files read by Spark, numbered as an editor numbers
-- them, split into whitespace-separated fields. Spark SQL (run as it is, not derived from DuckDB's).
-- Grain: one row per non-blank, non-comment line of every file.
-- Inputs: irw_text (warehouse/engines/spark.py: one row per line as spark.read.text reads it with lineSep
-- '\n', with file = _metadata.file_path, block = _metadata.file_block_start, the start of the
-- split of the file the line was read from, and row_id = monotonically_increasing_id() from the
-- same scan).
-- trec_eval: as sql/ingest/line_mode.sql's, restated below: fields split on runs of spaces and
-- tabs, and a line whose first field starts with '#' is a comment.
-- Line numbers without a sort: Spark reads a file as splits (a compressed file as one), each line
-- belonging to the split it starts in; a split is read in order within one task, where
-- monotonically_increasing_id() counts up by one per row. So a line's number in its split is its
-- row_id minus the split's first row_id, and the lines before the split are the line counts of the
-- file's earlier splits. Only one row per split is aggregated and joined back (broadcast).
-- As sql/ingest/line_mode.sql: fields are separated by runs of spaces, tabs and CRs (a CR LF line
-- end leaves a CR at the end of the line), a line whose first field starts with '#' is a comment,
-- '#' inside a field is data, and blank lines are counted but hold no fields.
-- raw_problems: what local ingest refuses in a line's bytes before reading its fields
-- (warehouse/ingestion/files.py's TextScan and _line_problems), with its messages: a CR that does not end
-- the line, U+0001, and bytes that are not UTF-8 (Spark's reader keeps a line's bytes as they are;
-- is_valid_utf8 checks them). A line with raw problems is kept whatever its
-- fields, for sql/spark/line_problems.sql, which is checked before anything reads the fields.
with splits as (
    select
        file,
        block,
        count(*) as lines,
        min(row_id) as first_row
    from irw_text
    group by file, block
),

split_starts as (
    select
        file,
        block,
        first_row,
        coalesce(sum(lines) over (
            partition by file order by block rows between unbounded preceding and 1 preceding
        ), 0) as lines_before,
        sum(lines) over (partition by file) as file_lines
    from splits
),

split_lines as (
    select /*+ BROADCAST(s) */
        t.file,
        s.lines_before + (t.row_id - s.first_row) + 1 as line_no,
        s.file_lines,
        t.value,
        filter(split(t.value, '[ \\t\\r]'), x -> x <> '') as fields
    from irw_text as t
    inner join split_starts as s
        on s.file = t.file
       and s.block = t.block
),

checked_lines as (
    select
        file,
        line_no,
        fields,
        filter(array(
            case
                when instr(regexp_replace(value, '\\r$', ''), '\r') > 0
                    then 'a carriage return (CR) inside the line; lines end in LF or CR LF'
                         || case
                             when line_no = 1 and file_lines = 1
                                 then ' (this file\'s lines end in CR alone, as on classic Mac OS: convert them, '
                                      || 'e.g. with tr \'\\r\' \'\\n\')'
                             else ''
                         end
            end,
            case
                when instr(value, '\u0001') > 0
                    then 'the control character U+0001 inside the line; it is not text a TREC file holds: remove it'
            end,
            case when not is_valid_utf8(value) then 'bytes that are not valid UTF-8' end
        ), x -> x is not null) as raw_problems
    from split_lines
),

final as (
    select
        file,
        line_no,
        fields,
        size(fields) as field_count,
        raw_problems
    from checked_lines
    where (size(fields) > 0 and not startswith(fields[0], '#'))
       or size(raw_problems) > 0
)

select * from final
