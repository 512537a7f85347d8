-- eval_qrels: the judgments of the qrels set under evaluation, with relevance decided once.
-- Grain: one row per query x judged doc.
-- Inputs: qrels, $qrels_set_id, $level (trec_eval -l: relevant means grade >= level).
-- trec_eval: a judged document is relevant when grade >= level; judged non-relevant when
-- 0 <= grade < level; a negative grade is judged but neither (trec_eval's "unjudged in pool").
-- cascade: the view of 04b_run_rows_graded.sql reads this table, and PostgreSQL drops a table a
-- view reads only with the view (04b makes it again); DuckDB's views hold no such link.
-- irw: postgres only (until the evaluation's transaction ends: its statements join whole temp
-- tables, which hash joins do in one pass, while PostgreSQL's estimates of their multi-column joins
-- (run x query) fall to one row and pick nested loops: eval_run_rows_graded's left join to
-- eval_qrels compared 5,000 run rows with 10,000 judgments each, 22 s of an incremental 100-run
-- leaderboard; where no other join exists PostgreSQL still takes a nested loop)
set local enable_nestloop = off;

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
