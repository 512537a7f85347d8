-- qrels_problems: everything wrong with a staged qrels file, one row per problem, in line order.
-- Grain: one row per (line, reason).
-- Inputs: stage_fields; $field_count, the field count (3 or 4) of the first data line that has
-- 3 or 4 fields, which every line must share.
-- trec_eval: qrels are `qid iter docid grade` (the iter column is ignored); grades are integers
-- and may be negative (trec_eval counts negatively judged documents as judged but not in the
-- pool's relevant or non-relevant counts); a duplicate (qid, docid) is an error in trec_eval too,
-- unless read as qrels_jg (-R qrels_jg), where the second field names a judgment group: said.
with field_problems as (
    select
        line_no,
        case
            when field_count not in (3, 4)
                then 'expected 4 fields (qid iter docid grade) or 3 (qid docid grade), found ' || field_count
            when field_count <> $field_count
                then 'found ' || field_count || ' fields where the first line has ' || $field_count
            when not regexp_full_match(fields[field_count], '[+-]?[0-9]+')
                then 'grade ' || fields[field_count] || ' is not an integer'
            when try_cast(fields[field_count] as integer) is null
                then 'grade ' || fields[field_count] || ' is out of range'
        end as reason
    from stage_fields
),

duplicates as (
    select
        fields[1] as query_id,
        fields[field_count - 1] as doc_id,
        list(line_no order by line_no) as lines,
        -- judgments of one document in several iter values: trec_eval's qrels_jg (a group each)
        count(distinct case when field_count = 4 then fields[2] end) > 1 as in_groups
    from stage_fields
    where field_count in (3, 4)
    group by fields[1], fields[field_count - 1]
    having count(*) > 1
),

duplicate_problems as (
    select
        unnest(lines[2:]) as line_no,
        'duplicate judgment of document ' || doc_id || ' for query ' || query_id
            || ' (first at line ' || lines[1] || ')'
            || case when in_groups then '; their second fields differ: if they name judgment groups '
                || '(trec_eval''s qrels_jg), ingest the file with --subtopics' else '' end as reason
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
