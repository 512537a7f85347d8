-- fraction_rows: the rows of a float (or decimal) frame column in an integer role (a qrels grade,
-- a run's rank) whose value is not a whole number (2.5, inf, nan), as the file's rule words them
-- once written; warehouse/ingestion/frames.py refuses the column as a whole and lists these.
-- Composed: [column] is the frame's column (a name from frames.QRELS_COLUMNS / RUN_COLUMNS,
-- quoted), never the user's text.
-- Grain: one row per such row, at most 20 (InputFileError.MAX_SHOWN), in the frame's order, each
-- with the count of them all.
-- Inputs: frame (numbered.sql).
-- trec_eval: none (grades are integers, as a qrels file's are: sql/ingest/qrels_problems.sql).
select irw_row, cast(/* column */ as varchar) as value, count(*) over () as total
from frame
where /* column */ is not null
    and not (isfinite(cast(/* column */ as double)) and cast(/* column */ as double) = trunc(cast(/* column */ as double)))
order by irw_row
limit 20
