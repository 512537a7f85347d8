-- ir_metadata: the text of the `# ir_metadata.start` ... `# ir_metadata.end` comment block at the
-- head of a run file (the ir_metadata convention puts it there), how many comment and blank lines
-- head the file (the column reader, stage_run_columns.sql, skips them) and the tag of the first
-- data line (the column reader checks every line against it).
-- Grain: one row; ir_metadata is NULL when the first $head_lines lines hold no complete block.
-- Inputs: $path, $compression, $head_lines, the macros of line_mode.sql. Only the head of the
-- file is read, so a 7M-line run pays nothing for it. The block's lines are kept without their
-- leading '#' and one space, so the stored text is the YAML document the convention writes there.
-- trec_eval: none (metadata from the file's head, read before anything is staged).
with head_lines as (
    select line
    from trec_lines($path, $compression)
    limit $head_lines
),

numbered as (
    select
        cast(row_number() over () as bigint) as line_no,
        rtrim(line, chr(13)) as line
    from head_lines
),

markers as (
    select
        min(line_no) filter (where trim(line) = '# ir_metadata.start') as start_line,
        min(line_no) filter (where trim(line) = '# ir_metadata.end') as end_line
    from numbered
),

block as (
    select
        l.line_no,
        regexp_replace(l.line, '^\s*# ?', '') as text
    from numbered as l
    cross join markers as m
    where l.line_no > m.start_line
      and l.line_no < m.end_line
      and l.line is not null
),

data_lines as (
    select
        line_no,
        trec_fields(line) as fields
    from numbered
    where is_trec_data(trec_fields(line))
),

header as (
    select
        coalesce(min(line_no) - 1, (select count(*) from numbered)) as header_lines,
        arg_min(fields[6], line_no) as first_tag
    from data_lines
),

final as (
    select
        (select string_agg(text, chr(10) order by line_no) from block) as ir_metadata,
        header.header_lines,
        header.first_tag
    from header
)

select * from final
