-- evaluated_runs: the runs of the prepared evaluation (eval_run_queries) that have a query with
-- both results and judgments: a run missing here is trec_eval's "No queries with both results and
-- relevance info".
-- Grain: one row per such run. Inputs: eval_run_queries (temporary, sql/eval/04_run_queries.sql), runs.
-- trec_eval: the queries it evaluates are those with both results and judgments; a query -c adds
-- (in_run false) is not one of them.
select distinct r.name from eval_run_queries as e
inner join runs as r on r.run_id = e.run_id
where e.in_run
