-- qrels_counts: the query and judgment counts of the qrels set Spark read (one set, Spark's
-- in-session qrels_sets table), stored with it (warehouse/engines/spark_store.py).
-- Grain: one row. Inputs: qrels_sets (Spark's).
-- trec_eval: none (what Spark computed is stored as it is).
select query_count, judgment_count from qrels_sets
