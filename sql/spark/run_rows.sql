-- spark run rows: every run row with trec_eval 9.0.8's rank, the run_rows table an evaluation reads
-- (sql/schema/001_core.sql's columns). Spark SQL.
-- Grain: one row per run x query x doc. Inputs: irw_run_input (run_id, query_id, doc_id,
-- rank_given, score: validated rows of every run, from text files or data frames).
-- trec_eval: the rank is the order of scores compared as 32-bit floats, descending, ties broken by
-- docid descending in byte order (Spark compares strings by their UTF-8 bytes), as
-- sql/ingest/insert_run_rows.sql with run_field_rules.sql's trec_float32: C's double-to-float
-- conversion makes a score beyond the float32 range +-infinity.
select
    run_id,
    query_id,
    doc_id,
    rank_given,
    score,
    row_number() over (
        partition by run_id, query_id
        order by
            case
                when score >= 3.4028235677973366e38D then cast('inf' as float)
                when score <= -3.4028235677973366e38D then cast('-inf' as float)
                else cast(score as float)
            end desc,
            doc_id desc
    ) as trec_rank
from irw_run_input
