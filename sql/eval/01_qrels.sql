-- eval_qrels: the judgments of the qrels set under evaluation, with relevance decided once.
-- Grain: one row per query x judged doc.
-- Inputs: qrels, $qrels_set_id, $level (trec_eval -l: relevant means grade >= level).
-- trec_eval: a judged document is relevant when grade >= level; judged non-relevant when
-- 0 <= grade < level; a negative grade is judged but neither (trec_eval's "unjudged in pool").
-- cascade: the view of 04b_run_rows_graded.sql reads this table, and PostgreSQL drops a table a
-- view reads only with the view (04b makes it again); DuckDB's views hold no such link.
drop table if exists eval_qrels cascade;

create temp table eval_qrels as
select
    query_id,
    doc_id,
    grade,
    grade >= $level as is_rel,
    grade >= 0 and grade < $level as is_nonrel
from qrels
where qrels_set_id = $qrels_set_id;

-- irw: postgres only. PostgreSQL plans a query over a temporary table with no statistics of it
-- until it is analyzed (autovacuum never does); DuckDB keeps them as it writes the table.
analyze eval_qrels
