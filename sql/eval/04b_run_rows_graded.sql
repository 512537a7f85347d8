-- run rows graded: every stored row of the evaluated runs, in the evaluated queries, with the
-- document's judgment (null when unjudged).
-- Grain: one row per run x evaluated query x retrieved document.
-- Inputs: run_rows (scores as doubles), eval_run_queries (04: the query set), eval_qrels (01:
-- grade, is_rel at the evaluation's level).
-- trec_eval: its own families read the judged ranked rows (03, 05) instead; this is for the families
-- that rank every row by rules of their own (gdeval's and ndeval's double-score orders, the
-- tie-aware measures' tie groups). A view: nothing is computed unless one of them reads it.
drop view if exists eval_run_rows_graded;

create temp view eval_run_rows_graded as
select
    rr.run_id,
    rr.query_id,
    rr.doc_id,
    rr.score,
    q.grade,
    coalesce(q.is_rel, false) as is_rel
from run_rows as rr
inner join eval_run_queries as e
    on e.run_id = rr.run_id
   and e.query_id = rr.query_id
left join eval_qrels as q
    on q.query_id = rr.query_id
   and q.doc_id = rr.doc_id
