-- insert_judged_run_rows_by_sorting: the judged rows of a validated staged run, each at its
-- trec_eval rank among all the run's rows, for a warehouse that exists to evaluate files once
-- (warehouse/ingestion/files.py: judged_rows_only, when the qrels judge too many documents per query for
-- insert_run_rows_by_counting.sql's counting to pay).
-- Grain: one row per (query, doc) of the file that the qrels judge.
-- Inputs: stage_run (validated and typed), qrels, the macros of run_field_rules.sql, $run_id.
-- trec_eval: every row is ranked as insert_run_rows.sql ranks it (score as a 32-bit float,
-- descending, ties by docid descending in byte order), unjudged rows included, and only then are
-- the unjudged ones left out: a judged document's rank counts the unjudged documents above it.
-- Why: inserting every row and deleting the unjudged ones afterwards cost two passes over the run
-- (DL19's 43,000 lines: ~12 ms + ~4.5 ms against ~7 ms for this one statement).
insert into run_rows (run_id, query_id, doc_id, rank_given, score, trec_rank)
with ranked as (
    select
        query_id,
        doc_id,
        rank_given,
        score,
        row_number() over (
            partition by query_id
            order by trec_float32(score) desc, doc_id desc
        ) as trec_rank
    from stage_run
),

final as (
    select
        $run_id as run_id,
        r.query_id,
        r.doc_id,
        r.rank_given,
        r.score,
        r.trec_rank
    from ranked as r
    where exists (select 1 from qrels as q where q.query_id = r.query_id and q.doc_id = r.doc_id)
)

select * from final
