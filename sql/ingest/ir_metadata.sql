-- ir_metadata: the text of an `# ir_metadata.start` ... `# ir_metadata.end` comment block.
-- Grain: one row (NULL when the file has no such block).
-- Inputs: stage_lines. The block's lines are kept without their leading '#' and one space,
-- so the stored text is the YAML document the ir_metadata convention writes there.
with markers as (
    select
        min(line_no) filter (where trim(line) = '# ir_metadata.start') as start_line,
        min(line_no) filter (where trim(line) = '# ir_metadata.end') as end_line
    from stage_lines
),

block as (
    select
        l.line_no,
        regexp_replace(l.line, '^\s*# ?', '') as text
    from stage_lines as l
    cross join markers as m
    where l.line_no > m.start_line
      and l.line_no < m.end_line
      and l.line is not null
),

final as (
    select string_agg(text, chr(10) order by line_no) as ir_metadata
    from block
)

select * from final
