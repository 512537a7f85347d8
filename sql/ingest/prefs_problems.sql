-- prefs_problems: everything wrong with a staged preference file, line by line, before any
-- preference is formed (a cycle is found afterwards by prefs_cycles.sql).
-- Grain: one row per (line, reason).
-- Inputs: stage_fields (sql/ingest/stage_fields.sql), $qrels_format (true: trec_eval -R
-- qrels_prefs, `qid jg docid rel_level` with one sub-group; false: -R prefs, `qid jg jsg docid
-- rel_level`).
-- trec_eval (get_prefs.c, get_qrels_prefs.c): a line has exactly that many fields and rel_level is
-- a non-negative number (trec_eval's atof reads `x` as 0: irw refuses it). A document given twice in
-- one sub-group is an error (trec_eval refuses two levels there, "different rel_level in same jsg",
-- and counts a repeated line twice); so is a document rated 0 in one sub-group of a judgment group
-- and above 0 in another (trec_eval: "has both 0 and non-0 rel_level assigned").
with lines as (
    select
        line_no,
        field_count,
        fields[1] as query_id,
        fields[2] as jg,
        case when $qrels_format then '0' else fields[3] end as jsg,
        fields[field_count - 1] as doc_id,
        fields[field_count] as level_text
    from stage_fields
),

field_problems as (
    select
        line_no,
        case
            when $qrels_format and field_count <> 4
                then 'expected 4 fields (qid jg docid rel_level, trec_eval -R qrels_prefs), found ' || field_count
            when not $qrels_format and field_count <> 5
                then 'expected 5 fields (qid jg jsg docid rel_level, trec_eval -R prefs), found ' || field_count
            when not regexp_full_match(level_text, '[+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?')
                then 'rel_level ' || level_text || ' is not a number >= 0'
        end as reason
    from lines
),

valid as (
    select l.line_no, l.query_id, l.jg, l.jsg, l.doc_id, try_cast(l.level_text as double) as rel_level
    from lines as l
    inner join field_problems as p
        on p.line_no = l.line_no
    where p.reason is null
),

duplicates as (
    select
        query_id,
        jg,
        jsg,
        doc_id,
        list(line_no order by line_no) as lines
    from valid
    group by query_id, jg, jsg, doc_id
    having count(*) > 1
),

duplicate_problems as (
    select
        unnest(lines[2:]) as line_no,
        'document ' || doc_id || ' is rated twice in sub-group ' || jsg || ' of judgment group ' || jg
            || ' of query ' || query_id || ' (first at line ' || lines[1] || ')' as reason
    from duplicates
),

-- a document rated 0 (non-relevant) in one sub-group of a judgment group and above 0 in another
zero_and_not as (
    select
        query_id,
        jg,
        doc_id,
        min(case when rel_level = 0 then line_no end) as zero_line,
        min(case when rel_level > 0 then line_no end) as rated_line
    from valid
    group by query_id, jg, doc_id
    having min(rel_level) = 0 and max(rel_level) > 0
),

zero_problems as (
    select
        greatest(zero_line, rated_line) as line_no,
        'document ' || doc_id || ' of query ' || query_id || ' is rated 0 (non-relevant) and above 0 in '
            || 'judgment group ' || jg || ' (lines ' || least(zero_line, rated_line) || ' and '
            || greatest(zero_line, rated_line) || ')' as reason
    from zero_and_not
),

final as (
    select line_no, reason from field_problems where reason is not null
    union all
    select line_no, reason from duplicate_problems
    union all
    select line_no, reason from zero_problems
)

select line_no, reason
from final
order by line_no, reason
