-- evaluated_queries: the queries each run of the prepared evaluation is evaluated on, in the order
-- trec_eval prints its per-query lines, and whether the run answers each (in_run: false for a
-- query -c adds).
-- Grain: one row per run and evaluated query, by query id. Inputs: eval_run_queries (temporary,
-- sql/eval/04_run_queries.sql), runs.
-- trec_eval: -q's per-query lines are written in this order; a run answering none of the qrels'
-- queries is refused ("No queries with both results and relevance info"), with -c too.
select r.name, e.query_id, e.in_run from eval_run_queries as e inner join runs as r
on r.run_id = e.run_id order by e.query_id
