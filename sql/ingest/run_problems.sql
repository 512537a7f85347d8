-- run_problems: everything wrong with a staged run file, one row per problem, in line order.
-- Grain: one row per (line, reason).
-- Inputs: stage_fields, the macros of run_field_rules.sql; $strict (irw ingest: exactly 6 fields
--         and an integer rank; trec_eval mode: 6 or more fields, the rank column unread).
-- trec_eval: the run format is `qid Q0 docid rank score tag`; trec_eval itself aborts on a
-- duplicate docid within a query, and so do we, naming both lines.
with field_problems as (
    select
        line_no,
        case
            when field_count < 6 or ($strict and field_count > 6)
                then 'expected 6 fields (qid Q0 docid rank score tag), found ' || field_count
            else coalesce(run_score_problem(fields[5]), run_rank_problem(fields[4], $strict))
        end as reason
    from stage_fields
),

candidate_hashes as (
    -- grouping 7M rows by one 64-bit hash of (query, doc) takes half the time of grouping by the
    -- two strings; the few keys that share a hash are then compared as strings below, so a hash
    -- collision can never pass for a duplicate
    select hash(fields[1], fields[3]) as key_hash
    from stage_fields
    where field_count >= 6
    group by key_hash
    having count(*) > 1
),

candidate_rows as (
    select
        line_no,
        fields[1] as query_id,
        fields[3] as doc_id
    from stage_fields
    where field_count >= 6
      and hash(fields[1], fields[3]) in (select key_hash from candidate_hashes)
),

duplicate_keys as (
    select
        query_id,
        doc_id,
        min(line_no) as first_line
    from candidate_rows
    group by query_id, doc_id
    having count(*) > 1
),

duplicate_problems as (
    select
        c.line_no,
        'duplicate document ' || d.doc_id || ' for query ' || d.query_id
            || ' (first at line ' || d.first_line || ')' as reason
    from candidate_rows as c
    inner join duplicate_keys as d
        on d.query_id = c.query_id
       and d.doc_id = c.doc_id
    where c.line_no > d.first_line
),

final as (
    select line_no, reason from field_problems where reason is not null
    union all
    select line_no, reason from duplicate_problems
)

select line_no, reason
from final
order by line_no, reason
