-- insert_evaluated: what Spark evaluated, run by measure (an Arrow table registered as incoming),
-- under staging's evaluation and run ids.
-- Grain: one row per evaluation, run and measure. Inputs: incoming (Spark's evaluated table),
-- spark_evaluation_ids, spark_run_ids (temporary: Spark's ids -> staging's).
-- trec_eval: none (what Spark computed is stored as it is).
insert into evaluated (evaluation_id, run_id, measure, query_count, computed_at)
select e.evaluation_id, r.run_id, i.measure, i.query_count, i.computed_at from incoming as i
inner join spark_evaluation_ids as e on e.spark_id = i.evaluation_id
inner join spark_run_ids as r on r.spark_id = i.run_id
