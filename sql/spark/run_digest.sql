-- spark run digest: a digest of each run's validated rows, the identity `irw eval --engine spark
-- --into` stores (runs.sha256, as `rows:<hex>`) for a run file the driver cannot read to hash its
-- bytes (hdfs://, s3a:// ...). Spark SQL (warehouse/engines/spark_store.py).
-- Grain: one row per run. Inputs: run_rows (run_id, query_id, doc_id, rank_given, score).
-- How: a SHA-256 of each query's rows in sorted order, then a SHA-256 of the run's query digests in
-- sorted order: the same rows give the same digest however Spark splits the files, and no array
-- holds more than one query's rows or one run's queries. It is not the file's sha256 (field
-- spacing and line order do not count): the same run ingested locally is a different identity.
-- trec_eval: nothing of its output depends on it.
with query_digests as (
    select
        run_id,
        query_id,
        sha2(
            concat_ws('\n', array_sort(collect_list(
                concat_ws('\t', doc_id, coalesce(cast(rank_given as string), ''), cast(score as string))
            ))),
            256
        ) as digest
    from run_rows
    group by run_id, query_id
)

select
    run_id,
    sha2(concat_ws('\n', array_sort(collect_list(concat_ws('\t', query_id, digest)))), 256) as digest
from query_digests
group by run_id
