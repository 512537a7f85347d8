-- spark frame run problems: what is wrong with the rows of run DataFrames, by the rules and in the
-- order local ingest of a data frame (warehouse/ingestion/frames.py) applies them, one row per
-- problem; warehouse/engines/spark.py turns frame_row into the row's 0-based position in its frame
-- and writes each problem as local ingest does (tests/test_spark.py holds the two equal, rule by
-- rule). Stage 1, the values a TREC line cannot carry (frames/role_problems.sql): a query,
-- document, score or rank missing (null, or NaN), or a query or document holding whitespace
-- (RE2's \s, as DuckDB matches it), at most 21 rows per frame and role. Stage 2, the rules of a
-- run file (ingest/run_field_rules.sql, run_problems.sql) on the text local ingest writes for the
-- row: a finite score, no document twice for a query of a run (every later row, naming the first).
-- Grain: one row per problem. Inputs: irw_run_input (run_id, query_id, doc_id, rank_given, score;
-- frame_no, the DataFrame's place among those given, and frame_row, the row's
-- monotonically_increasing_id in its frame; both null for the rows of text files, which
-- spark/run_problems.sql checks); :ranked, whether the frames have a rank column.
-- trec_eval: none (local ingest's checks of a data frame, restated in Spark SQL).
with frame_rows as (
    select * from irw_run_input where frame_no is not null
),

roles as (
    select frame_no, run_id, frame_row, 1 as role_order, 'query' as role, query_id as value, query_id is null as missing
    from frame_rows
    union all
    select frame_no, run_id, frame_row, 2 as role_order, 'doc' as role, doc_id as value, doc_id is null as missing
    from frame_rows
    union all
    select frame_no, run_id, frame_row, 3 as role_order, 'score' as role, null as value, score is null or isnan(score) as missing
    from frame_rows
    union all
    select frame_no, run_id, frame_row, 4 as role_order, 'rank' as role, null as value, rank_given is null as missing
    from frame_rows
    where :ranked
),

role_problems as (
    select
        1 as stage,
        frame_no,
        run_id,
        frame_row,
        role_order,
        role,
        case when missing then null else value end as value,
        cast(null as bigint) as first_row,
        cast(null as string) as reason,
        row_number() over (partition by frame_no, role order by frame_row) as nth
    from roles
    where missing or value rlike '[ \\t\\n\\f\\r]'
),

keyed as (
    select
        frame_no,
        run_id,
        frame_row,
        query_id,
        doc_id,
        score,
        min(frame_row) over (partition by frame_no, run_id, query_id, doc_id) as first_row
    from frame_rows
),

final as (
    select stage, frame_no, run_id, frame_row, role_order, role, value, first_row, reason
    from role_problems
    where nth <= 21
    union all
    select
        2 as stage,
        frame_no,
        run_id,
        frame_row,
        0 as role_order,
        null as role,
        null as value,
        cast(null as bigint) as first_row,
        'score ' || case when score > 0 then 'inf' else '-inf' end || ' is not finite' as reason
    from keyed
    where abs(score) = cast('inf' as double)
    union all
    select
        2 as stage,
        frame_no,
        run_id,
        frame_row,
        0 as role_order,
        null as role,
        null as value,
        first_row,
        'duplicate document ' || doc_id || ' for query ' || query_id as reason
    from keyed
    where frame_row > first_row
)

select * from final
