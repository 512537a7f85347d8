-- eval queries not in run: per run, the queries with stored scores that the run does not answer:
-- the qrels queries -c (trec_eval -c) evaluated for it as an empty ranking.
-- Grain: one row per run x such query.
-- Inputs: scores, run_queries (stored at ingest, kept for a run evaluated on Spark too), runs;
-- eval_wanted, eval_wanted_runs (as per_query.sql).
-- trec_eval: -c averages over every qrels query, a query the run lacks scoring 0; 9.0.8 prints no
-- -q line for such a query, 10.0 prints its zeros (Evaluation.per_query_shown leaves them out under
-- --compat 9).
with final as (
    select distinct
        r.name as run,
        s.query_id as query
    from scores as s
    inner join eval_wanted as w
        on w.evaluation_id = s.evaluation_id
       and w.stored = s.measure
    inner join eval_wanted_runs as o on o.run_id = s.run_id
    inner join runs as r on r.run_id = s.run_id
    where not exists (
        select 1
        from run_queries as rq
        where rq.run_id = s.run_id
          and rq.query_id = s.query_id
    )
)

select * from final
