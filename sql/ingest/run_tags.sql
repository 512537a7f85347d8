-- run_tags: the distinct tags (6th field) of a staged run file with where each first appears.
-- Grain: one row per tag. Inputs: stage_fields (lines with at least 6 fields).
select
    fields[6] as tag,
    min(line_no) as first_line,
    count(*) as line_count
from stage_fields
where field_count >= 6
group by fields[6]
order by first_line
