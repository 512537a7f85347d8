-- insert_run_queries: the queries a validated staged run answers, with their document counts.
-- Grain: one row per query of the file. Inputs: stage_run, $run_id.
-- trec_eval: num_ret before -M; an evaluation takes least(num_ret, depth).
insert into run_queries (run_id, query_id, num_ret)
select
    $run_id as run_id,
    query_id,
    count(*) as num_ret
from stage_run
group by query_id
