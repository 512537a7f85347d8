-- insert_run_queries: Spark's per-query document counts of a batch of runs (an Arrow table
-- registered as incoming), under staging's run ids.
-- Grain: one row per run and query. Inputs: incoming (run_id, query_id, num_ret: Spark's ids),
-- spark_run_ids (temporary: Spark's run_id -> staging's).
-- trec_eval: none (what Spark computed is stored as it is).
insert into run_queries (run_id, query_id, num_ret)
select m.run_id, i.query_id, i.num_ret from incoming as i
inner join spark_run_ids as m on m.spark_id = i.run_id
