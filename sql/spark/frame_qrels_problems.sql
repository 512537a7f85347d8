-- spark frame qrels problems: what is wrong with the rows of a qrels DataFrame, by the rules and in
-- the order local ingest of a data frame (warehouse/ingestion/frames.py) applies them, one row per
-- problem; warehouse/engines/spark.py turns frame_row into the row's 0-based position and writes
-- each problem as local ingest does (tests/test_spark.py holds the two equal, rule by rule).
-- Stage 1, the values a TREC line cannot carry (frames/role_problems.sql): a query, document or
-- grade missing (null, or NaN in a floating-point column), or holding whitespace (RE2's \s, as
-- DuckDB matches it), at most 21 rows per role. Stage 2, the rules of a qrels file
-- (ingest/qrels_problems.sql) on the text local ingest writes for the row: an integer grade in
-- range, no document judged twice for a query (every later row, naming the first).
-- Grain: one row per problem. Inputs: irw_qrels_input (qrels_set_id, query_id, doc_id as text,
-- grade as given, frame_row: the row's monotonically_increasing_id, in the frame's order);
-- :grade_floating, whether the grade column is floating-point (NaN is missing there).
-- trec_eval: none (local ingest's checks of a data frame, restated in Spark SQL).
with roles as (
    select frame_row, 1 as role_order, 'query' as role, query_id as value, query_id is null as missing
    from irw_qrels_input
    union all
    select frame_row, 2 as role_order, 'doc' as role, doc_id as value, doc_id is null as missing
    from irw_qrels_input
    union all
    select
        frame_row,
        3 as role_order,
        'grade' as role,
        cast(grade as string) as value,
        grade is null or (:grade_floating and isnan(try_cast(cast(grade as string) as double))) as missing
    from irw_qrels_input
),

role_problems as (
    select
        1 as stage,
        frame_row,
        role_order,
        role,
        case when missing then null else value end as value,
        cast(null as bigint) as first_row,
        cast(null as string) as reason,
        row_number() over (partition by role order by frame_row) as nth
    from roles
    where missing or value rlike '[ \\t\\n\\f\\r]'
),

grades as (
    select frame_row, cast(grade as string) as grade_text
    from irw_qrels_input
),

grade_problems as (
    select
        frame_row,
        case
            when not grade_text rlike '^[+-]?[0-9]+$' then 'grade ' || grade_text || ' is not an integer'
            when try_cast(grade_text as int) is null then 'grade ' || grade_text || ' is out of range'
        end as reason
    from grades
),

keyed as (
    select
        frame_row,
        query_id,
        doc_id,
        min(frame_row) over (partition by query_id, doc_id) as first_row
    from irw_qrels_input
),

final as (
    select stage, frame_row, role_order, role, value, first_row, reason
    from role_problems
    where nth <= 21
    union all
    select 2 as stage, frame_row, 0 as role_order, null as role, null as value, cast(null as bigint) as first_row, reason
    from grade_problems
    where reason is not null
    union all
    select
        2 as stage,
        frame_row,
        0 as role_order,
        null as role,
        null as value,
        first_row,
        'duplicate judgment of document ' || doc_id || ' for query ' || query_id as reason
    from keyed
    where frame_row > first_row
)

select 0 as frame_no, * from final
