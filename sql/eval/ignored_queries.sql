-- ignored queries: per run, the queries it answers that the qrels do not judge.
-- Grain: one row per run with at least one such query.
-- Inputs: run_queries (stored at ingest, so no run rows are read), eval/judged_queries.sql; $run_ids,
-- $qrels_set_id.
-- trec_eval: ignores these queries silently; irw counts them so a report can say so.
with final as (
    select
        r.name as run,
        count(*) as ignored
    from run_queries as rq
    inner join runs as r on r.run_id = rq.run_id
    where rq.run_id in (select unnest($run_ids))
      and not exists (select 1 from "eval/judged_queries.sql" as j where j.query_id = rq.query_id)
    group by r.name
)

select * from final
