-- spark run queries: the queries each run answers with their document counts (the run_queries
-- table, as sql/ingest/insert_run_queries.sql writes it for one run). Spark SQL.
-- Grain: one row per run x query. Inputs: run_rows.
-- trec_eval: num_ret before -M; an evaluation takes least(num_ret, depth).
select
    run_id,
    query_id,
    count(*) as num_ret
from run_rows
group by run_id, query_id
