-- subtopic_qrels_problems: everything wrong with a staged diversity qrels file (ndeval's format),
-- one row per problem, in line order.
-- Grain: one row per (line, reason).
-- Inputs: stage_fields (the file split into fields, sql/ingest/stage_fields.sql).
-- trec_eval: none (ndeval's format, whose rules follow).
-- ndeval: every line is `qid subtopic docid grade`, the grade an integer; a (query, subtopic, doc)
-- judged twice is an error (ndeval would keep one of the two silently). The same document judged
-- for several subtopics of a query is the point of the format.
with field_problems as (
    select
        line_no,
        case
            when field_count <> 4
                then 'expected 4 fields (qid subtopic docid grade), found ' || field_count
            when not regexp_full_match(fields[4], '[+-]?[0-9]+')
                then 'grade ' || fields[4] || ' is not an integer'
            when try_cast(fields[4] as integer) is null
                then 'grade ' || fields[4] || ' is out of range'
        end as reason
    from stage_fields
),

duplicates as (
    select
        fields[1] as query_id,
        fields[2] as subtopic,
        fields[3] as doc_id,
        list(line_no order by line_no) as lines
    from stage_fields
    where field_count = 4
    group by fields[1], fields[2], fields[3]
    having count(*) > 1
),

duplicate_problems as (
    select
        unnest(lines[2:]) as line_no,
        'duplicate judgment of document ' || doc_id || ' for subtopic ' || subtopic || ' of query '
            || query_id || ' (first at line ' || lines[1] || ')' as reason
    from duplicates
),

final as (
    select line_no, reason from field_problems where reason is not null
    union all
    select line_no, reason from duplicate_problems
)

select line_no, reason
from final
order by line_no, reason
