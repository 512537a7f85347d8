-- ignored queries: per run, the queries it answers that the qrels do not judge, and how many of its
-- queries they do judge.
-- Grain: one row per run with at least one such query.
-- Inputs: run_queries (stored at ingest, so no run rows are read), eval/judged_queries.sql; $run_ids,
-- $qrels_set_id.
-- trec_eval: ignores these queries silently; irw counts them so a report can say so. A run none of
-- whose queries the qrels judge is refused by trec_eval, -c or not ("No queries with both results
-- and relevance info"): judged = 0 says so.
with answered as (
    -- a join, not EXISTS in the select list, which Spark does not take
    select
        r.name as run,
        j.query_id is not null as is_judged
    from run_queries as rq
    inner join runs as r on r.run_id = rq.run_id
    left join "eval/judged_queries.sql" as j on j.query_id = rq.query_id
    where rq.run_id in (select unnest($run_ids))
),

final as (
    select
        run,
        count(*) filter (where not is_judged) as ignored,
        count(*) filter (where is_judged) as judged
    from answered
    group by run
    having count(*) filter (where not is_judged) > 0
)

select * from final
