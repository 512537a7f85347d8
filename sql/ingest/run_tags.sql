-- run_tags: the distinct tags (6th field) of a staged run file, where each first and last appears.
-- Grain: one row per tag, in order of first appearance. Inputs: stage_fields.
-- trec_eval keeps the tag of the last data line as the runid; last_line lets the trec_eval
-- drop-in do the same when a file mixes tags.
select
    fields[6] as tag,
    min(line_no) as first_line,
    max(line_no) as last_line
from stage_fields
where field_count >= 6
group by fields[6]
order by first_line
