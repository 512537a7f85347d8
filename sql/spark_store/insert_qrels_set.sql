-- insert_qrels_set: the row of a qrels set Spark read from a file irw cannot see (hdfs://, s3a://),
-- named and identified (sha256: rows:<digest>) as sql/spark/qrels_digest.sql says; staged in a local
-- warehouse before being copied to the target (warehouse/engines/spark_store.py).
-- Grain: one row inserted, its qrels_set_id returned. Inputs: $name, $source_path, $sha256,
-- $query_count, $judgment_count.
-- trec_eval: none (what Spark computed is stored as it is).
insert into qrels_sets (name, source_path, sha256, query_count, judgment_count)
values ($name, $source_path, $sha256, $query_count, $judgment_count)
returning qrels_set_id
