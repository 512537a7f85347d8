-- judged queries: the queries a qrels set judges, composed where a run's queries are split into
-- those the qrels judge and those they ignore (eval/ignored_queries.sql, eval/runs_without_rows.sql).
-- Grain: one row per query of the set. Inputs: qrels; $qrels_set_id.
-- trec_eval: a query counts when the qrels hold a judgment of it, whatever its grade.
select distinct query_id
from qrels
where qrels_set_id = $qrels_set_id
