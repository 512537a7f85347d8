-- insert_scores: Spark's per-query scores of a batch of runs (an Arrow table registered as
-- incoming), under staging's ids.
-- Grain: one row per evaluation, run, query and measure. Inputs: incoming (Spark's scores table),
-- spark_evaluation_ids, spark_run_ids (temporary: Spark's ids -> staging's), $qrels_set_id.
-- trec_eval: none (what Spark computed is stored as it is).
insert into scores (evaluation_id, qrels_set_id, run_id, query_id, measure, value,
    numerator, denominator)
select e.evaluation_id, $qrels_set_id, r.run_id, i.query_id, i.measure,
    i.value, i.numerator, i.denominator from incoming as i
inner join spark_evaluation_ids as e on e.spark_id = i.evaluation_id
inner join spark_run_ids as r on r.spark_id = i.run_id
