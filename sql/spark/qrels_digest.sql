-- spark qrels digest: a digest of the validated judgments, the identity `irw eval --engine spark
-- --into` stores (qrels_sets.sha256, as `rows:<hex>`) for qrels the driver cannot read to hash
-- their bytes (hdfs://, s3a:// ...). Spark SQL (warehouse/engines/spark_store.py).
-- Grain: one row. Inputs: qrels (query_id, doc_id, grade).
-- How: as sql/spark/run_digest.sql, a SHA-256 per query of its sorted judgments, then one of the
-- sorted query digests. Not the file's sha256: the same qrels ingested locally is another identity.
-- trec_eval: nothing of its output depends on it.
with query_digests as (
    select
        query_id,
        sha2(concat_ws('\n', array_sort(collect_list(concat_ws('\t', doc_id, cast(grade as string))))), 256)
            as digest
    from qrels
    group by query_id
)

select
    sha2(concat_ws('\n', array_sort(collect_list(concat_ws('\t', query_id, digest)))), 256) as digest
from query_digests
