-- ignored queries: per run, the queries it answers that the qrels do not judge, how many of its
-- queries they do judge, and how many of the qrels' queries it does not answer.
-- Grain: one row per run with at least one query the qrels do not judge, or judged by the qrels
-- and lacking some of theirs.
-- Inputs: runs, run_queries (stored at ingest, so no run rows are read), eval/judged_queries.sql;
-- $run_ids, $qrels_set_id.
-- trec_eval: ignores the run's queries the qrels do not judge silently, and leaves the qrels'
-- queries the run lacks out of the means (-c scores them 0); irw counts both so a report can say
-- so (an average over fewer queries is no average over the set). A run none of whose queries the
-- qrels judge is refused by trec_eval, -c or not ("No queries with both results and relevance
-- info"): judged = 0 says so.
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

per_run as (
    select
        run,
        count(*) filter (where not is_judged) as ignored,
        count(*) filter (where is_judged) as judged
    from answered
    group by run
),

set_size as (
    -- the qrels' queries a run lacks are those it does not answer of the set's: the set's count
    -- less the judged queries it answers (no cross join of runs and queries)
    select count(*) as queries from "eval/judged_queries.sql" as j
),

final as (
    select
        p.run,
        p.ignored,
        p.judged,
        s.queries - p.judged as missing
    from per_run as p
    cross join set_size as s
    where p.ignored > 0
       or (p.judged > 0 and s.queries > p.judged)
)

select * from final
