-- insert_run_queries: each run's queries and their numbers of retrieved documents, from the files
-- staged by stage_runs.sql, as sql/ingest/insert_run_queries.sql stores one run's.
-- Grain: one row per run x query.
-- Inputs: stage_runs_columns, oneshot_runs (name, file_id), runs.
-- trec_eval: num_ret counts a query's lines, before -M, as sql/ingest/insert_run_queries.sql.
insert into run_queries (run_id, query_id, num_ret)
select
    r.run_id,
    s.query_id,
    count(*) as num_ret
from stage_runs_columns as s
inner join oneshot_runs as o
    on o.file_id = s.file_id
inner join runs as r
    on r.name = o.name
group by r.run_id, s.query_id
