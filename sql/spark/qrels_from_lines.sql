-- spark qrels from lines: the judgments of validated qrels lines (qrels_problems.sql found none), as
-- the qrels table holds them. Spark SQL, as sql/ingest/stage_qrels_from_fields.sql: 3-field lines
-- are `qid docid grade`, 4-field lines `qid iter docid grade`; the doc is always the next-to-last
-- field and the grade the last.
-- Grain: one row per query x doc. Inputs: irw_lines, :qrels_set_id.
-- trec_eval: a 4-field line's second field (the iteration) is ignored, as trec_eval ignores it.
select
    cast(:qrels_set_id as int) as qrels_set_id,
    fields[0] as query_id,
    fields[field_count - 2] as doc_id,
    cast(fields[field_count - 1] as int) as grade
from irw_lines
