-- spark run problems: everything wrong with the run lines of spark text lines (text_lines.sql), one
-- row per problem. Spark SQL, the rules of sql/ingest/run_problems.sql and run_field_rules.sql
-- with the same messages (tests/test_spark.py holds the two to the same problems on the same
-- files): `qid Q0 docid rank score tag`; :strict (irw ingest's rules) wants exactly 6 fields and
-- an integer rank, trec_eval's (the drop-in) 6 or more and no rank; a score is a decimal number as
-- docs/input-formats.md writes it and finite; a document twice for one query is an error naming
-- both lines.
-- Grain: one row per (file, line, reason). Inputs: irw_lines (text_lines.sql's rows), :strict.
-- trec_eval: none (local ingest's checks of run lines, restated in Spark SQL).
with field_problems as (
    select
        file,
        line_no,
        case
            when field_count < 6 or (:strict and field_count > 6)
                then 'expected 6 fields (qid Q0 docid rank score tag), found ' || field_count
            when not fields[4] rlike '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$'
                then case
                    when lower(fields[4]) rlike '^[+-]?(inf|infinity|nan)$' then 'score ' || fields[4] || ' is not finite'
                    else 'score ' || fields[4] || ' is not a number'
                end
            -- NaN sorts above every double in Spark and is not between these; infinity is not either
            when not coalesce(try_cast(fields[4] as double) between -1.7976931348623157e308D and 1.7976931348623157e308D,
                              false)
                then 'score ' || fields[4] || ' is not finite'
            when :strict and not fields[3] rlike '^[+-]?[0-9]+$'
                then 'rank ' || fields[3] || ' is not an integer'
            when :strict and try_cast(fields[3] as bigint) is null
                then 'rank ' || fields[3] || ' is out of range'
        end as reason
    from irw_lines
),

keyed as (
    -- lines with a query and a document (Spark's arrays refuse an index past their end)
    select
        file,
        line_no,
        fields[0] as query_id,
        fields[2] as doc_id
    from irw_lines
    where field_count >= 6
),

duplicate_keys as (
    select
        file,
        query_id,
        doc_id,
        min(line_no) as first_line
    from keyed
    group by file, query_id, doc_id
    having count(*) > 1
),

duplicate_problems as (
    select
        l.file,
        l.line_no,
        'duplicate document ' || d.doc_id || ' for query ' || d.query_id
            || ' (first at line ' || d.first_line || ')' as reason
    from keyed as l
    inner join duplicate_keys as d
        on d.file = l.file
       and d.query_id = l.query_id
       and d.doc_id = l.doc_id
    where l.line_no > d.first_line
),

final as (
    select file, line_no, reason from field_problems where reason is not null
    union all
    select file, line_no, reason from duplicate_problems
)

select * from final
