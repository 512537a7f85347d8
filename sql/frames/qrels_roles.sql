-- qrels_roles: a qrels frame's columns in their roles, as text (warehouse/ingestion/frames.py). Composed:
-- [query], [doc] and [grade] are the frame's columns (names from frames.QRELS_COLUMNS,
-- quoted), never the user's text.
-- Grain: one row per frame row. Inputs: frame (numbered.sql).
-- trec_eval: none (the frame becomes a TREC file, which is then ingested and checked as any file is).
create temp view frame_roles as
select
    irw_row,
    cast(/* query */ as varchar) as query,
    cast(/* doc */ as varchar) as doc,
    cast(/* grade */ as varchar) as grade
from frame
