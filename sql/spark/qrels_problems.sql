-- spark qrels problems: everything wrong with the qrels lines of spark text lines
-- (text_lines.sql), one row per problem. Spark SQL, the rules of sql/ingest/qrels_problems.sql with
-- the same messages: `qid iter docid grade` or `qid docid grade`, every line with the field count
-- of the file's first line that has 3 or 4, an integer grade (negative grades are judged, as in
-- trec_eval), no document judged twice for a query.
-- Grain: one row per (file, line, reason). Inputs: irw_lines.
-- trec_eval: none (local ingest's checks of qrels lines, restated in Spark SQL).
with file_shapes as (
    select
        file,
        min_by(field_count, line_no) as first_count
    from irw_lines
    where field_count in (3, 4)
    group by file
),

field_problems as (
    select
        l.file,
        l.line_no,
        case
            when field_count not in (3, 4)
                then 'expected 4 fields (qid iter docid grade) or 3 (qid docid grade), found ' || field_count
            when field_count <> s.first_count
                then 'found ' || field_count || ' fields where the first line has ' || s.first_count
            when not fields[field_count - 1] rlike '^[+-]?[0-9]+$'
                then 'grade ' || fields[field_count - 1] || ' is not an integer'
            when try_cast(fields[field_count - 1] as int) is null
                then 'grade ' || fields[field_count - 1] || ' is out of range'
        end as reason
    from irw_lines as l
    left join file_shapes as s
        on s.file = l.file
),

keyed as (
    -- lines with a query and a document (Spark's arrays refuse an index past their end)
    select
        file,
        line_no,
        fields[0] as query_id,
        fields[field_count - 2] as doc_id
    from irw_lines
    where field_count in (3, 4)
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
        'duplicate judgment of document ' || d.doc_id || ' for query ' || d.query_id
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
