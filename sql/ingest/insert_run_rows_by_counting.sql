-- insert_run_rows_by_counting: the judged rows of a validated staged run, ranked without sorting the run.
-- Grain: one row per (query, doc) of the file that some stored qrels judge. Only for a warehouse
-- that exists to evaluate files once (warehouse/ingestion/files.py: judged_rows_only): every measure reads
-- judged documents at their ranks plus run_queries' counts, nothing else (relstring and --compat 10
-- read unjudged rows too, and take insert_run_rows.sql).
-- Inputs: stage_run (validated: (query, doc) pairs are unique, scores finite), qrels, the macros of
-- run_field_rules.sql, $run_id.
-- trec_eval: the rank of a document in trec_eval 9.0.8's order (float32 score descending, docid
-- descending) is one plus the number of documents of its query before it in that order; with
-- unique pairs the order is total, so counting gives exactly the rank row_number() would. Counting
-- compares each judged document with its query's documents (about 2 x 7M comparisons on an MS
-- MARCO-like run) instead of sorting all 7M rows; warehouse/ingestion/files.py takes insert_run_rows.sql
-- when the qrels judge so many documents per query that the comparisons would cost more.
-- The run's float32 scores are computed where each side reads stage_run, not in a shared CTE:
-- DuckDB materializes a CTE with two consumers, 7M rows copied (0.47 s -> 0.42 s and ~0.2 GB less
-- peak memory without it).
-- "Before it" is a join condition, not a filter on all pairs, so only the ~2.7M rows ahead of a
-- judged document reach the grouping (0.42 s -> 0.39 s); the left join keeps a judged document
-- that nothing precedes (rank 1).
insert into run_rows (run_id, query_id, doc_id, rank_given, score, trec_rank)
with judged as materialized (
    -- materialized so that these ~10k rows are what the join below builds on: planned inline in an
    -- early version, DuckDB joined the run with itself first (7M x 1,000 rows, spilling to disk)
    select query_id, doc_id, rank_given, score, trec_float32(score) as score_f32
    from stage_run as r
    where exists (select 1 from qrels as q where q.query_id = r.query_id and q.doc_id = r.doc_id)
),

final as (
    -- (query, doc) is unique, so grouping by the judged row's columns keeps one row per judged doc
    select
        $run_id as run_id,
        j.query_id,
        j.doc_id,
        j.rank_given,
        j.score,
        1 + count(o.query_id) as trec_rank
    from judged as j
    left join stage_run as o
        on o.query_id = j.query_id
       and (trec_float32(o.score) > j.score_f32
            or (trec_float32(o.score) = j.score_f32 and o.doc_id > j.doc_id))
    group by j.query_id, j.doc_id, j.rank_given, j.score
)

select * from final
