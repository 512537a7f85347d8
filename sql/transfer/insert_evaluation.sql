-- insert_evaluation: an evaluation's settings, as evaluation.sql read them from another warehouse
-- (or Spark's, warehouse/engines/spark_store.py), for one of this warehouse's qrels sets.
-- Grain: one row inserted, its evaluation_id returned. Inputs: $qrels_set_id and a $name per
-- column of evaluation.sql.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
insert into evaluations (qrels_set_id, settings_key, relevance_level, depth, judged_only, complete, compat,
    norel_queries, created_at)
values ($qrels_set_id, $settings_key, $relevance_level, $depth, $judged_only, $complete, $compat,
    $norel_queries, $created_at)
returning evaluation_id
