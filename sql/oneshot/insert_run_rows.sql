-- insert_run_rows: the rows of the runs staged by stage_runs.sql at their trec_eval ranks, as
-- sql/ingest/insert_run_rows.sql stores one run's, or with $judged_rows_only only the rows the
-- qrels judge, as sql/ingest/insert_judged_run_rows_by_sorting.sql stores them.
-- Grain: one row per run x (query, doc) of its file (judged ones only with $judged_rows_only).
-- Inputs: stage_runs_columns, oneshot_runs (name, file_id), runs, qrels, $judged_rows_only, the macros
-- of sql/ingest/run_field_rules.sql.
-- trec_eval: every row ranked (score as a 32-bit float, descending, ties by docid descending in
-- byte order), unjudged rows included, before the unjudged ones are left out.
insert into run_rows (run_id, query_id, doc_id, rank_given, score, trec_rank)
with ranked as (
    select
        file_id,
        query_id,
        doc_id,
        rank_given,
        score,
        row_number() over (
            partition by file_id, query_id
            order by trec_float32(score) desc, doc_id desc
        ) as trec_rank
    from stage_runs_columns
),

final as (
    select
        r.run_id,
        k.query_id,
        k.doc_id,
        k.rank_given,
        k.score,
        k.trec_rank
    from ranked as k
    inner join oneshot_runs as o
        on o.file_id = k.file_id
    inner join runs as r
        on r.name = o.name
    where not $judged_rows_only
       or exists (select 1 from qrels as q where q.query_id = k.query_id and q.doc_id = k.doc_id)
)

select * from final
