-- run_roles: a run frame's columns in their roles, as text (warehouse/ingestion/frames.py, frame_as_file);
-- the frame has no rank column, so each query's rows are ranked by score, highest first. Composed:
-- [query], [doc] and [score] are the frame's columns (names from frames.RUN_COLUMNS,
-- quoted), never the user's text.
-- Grain: one row per frame row. Inputs: frame (numbered.sql).
-- trec_eval: none (the frame becomes a TREC file, which is then ingested and checked as any file is).
create temp view frame_roles as
select
    irw_row,
    cast(/* query */ as varchar) as query,
    cast(/* doc */ as varchar) as doc,
    -- NaN is a missing score, as None is (pandas reads NaN as null, polars and Arrow keep it; so
    -- does Spark's restatement, spark/frame_run_problems.sql)
    case when isnan(try_cast(/* score */ as double)) then null else cast(/* score */ as varchar) end as score,
    cast(row_number() over (partition by cast(/* query */ as varchar) order by try_cast(/* score */ as double) desc) as varchar) as rank,
    -- text is written as given, for the file's rules to read (a score `abc` is refused naming it);
    -- a number as the shortest text of its double
    case when typeof(/* score */) = 'VARCHAR' then cast(/* score */ as varchar)
        else cast(cast(/* score */ as double) as varchar) end as score_text
from frame
