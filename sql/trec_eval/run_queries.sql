-- run_queries: the queries each stored run answers (with or without judgments), read with -q for
-- the per-query lines (warehouse/commands/trec_eval.py, _blocks: in_run).
-- Grain: one row per run and query it answers. Inputs: run_queries, runs.
-- trec_eval: none (which queries a run answers, as its file says).
select r.name, q.query_id from run_queries as q inner join runs as r
on r.run_id = q.run_id
