-- spark runs judging none: the runs given none of whose queries the qrels judge (a folder per system
-- holding its runs of several collections, evaluated against one collection's qrels), which an
-- evaluation on Spark leaves out and names, as `irw eval --qrels X` leaves out the stored runs X
-- judges none of (sql/catalog/select_runs.sql). Spark SQL.
-- Grain: one row per such run. Inputs: runs, run_queries, qrels.
-- trec_eval: such a run has no query to evaluate (trec_eval prints no per-query line for it).
select
    r.run_id,
    r.name
from runs as r
where not exists (
    select 1
    from run_queries as rq
    inner join qrels as q on q.query_id = rq.query_id
    where rq.run_id = r.run_id
)
order by r.name
