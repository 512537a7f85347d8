-- run_problems: everything wrong with a staged run file, one row per problem, in line order.
-- Grain: one row per (line, reason).
-- Inputs: stage_fields; $strict (irw ingest: exactly 6 fields and an integer rank;
--         trec_eval mode: 6 or more fields, the rank column unread, as trec_eval reads it).
-- trec_eval: the run format is `qid Q0 docid rank score tag`; trec_eval itself aborts on a
-- duplicate docid within a query, and so do we, naming both lines.
with field_problems as (
    select
        line_no,
        case
            when field_count < 6 or ($strict and field_count > 6)
                then 'expected 6 fields (qid Q0 docid rank score tag), found ' || field_count
            when try_cast(fields[5] as double) is null or contains(fields[5], '_')
                then 'score ' || fields[5] || ' is not a number'
            when not isfinite(try_cast(fields[5] as double))
                then 'score ' || fields[5] || ' is not finite'
            when $strict and not regexp_full_match(fields[4], '[+-]?[0-9]+')
                then 'rank ' || fields[4] || ' is not an integer'
        end as reason
    from stage_fields
),

duplicates as (
    select
        fields[1] as query_id,
        fields[3] as doc_id,
        list(line_no order by line_no) as lines
    from stage_fields
    where field_count >= 6
    group by fields[1], fields[3]
    having count(*) > 1
),

duplicate_problems as (
    select
        unnest(lines[2:]) as line_no,
        'duplicate document ' || doc_id || ' for query ' || query_id
            || ' (first at line ' || lines[1] || ')' as reason
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
