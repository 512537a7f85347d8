-- insert_run_rows: copies a validated staged run into run_rows under $run_id, ranked once.
-- Grain: one row per (query, doc) of the file.
-- Inputs: stage_run (validated and typed), the macros of
-- run_field_rules.sql, $run_id.
-- trec_eval: trec_rank is trec_eval 9.0.8's order: score compared as a 32-bit float, descending,
-- ties broken by docid descending in byte order (DuckDB compares VARCHAR by bytes). Storing it
-- here means evaluations never sort run rows again; --compat 10 (double scores) re-sorts.
insert into run_rows (run_id, query_id, doc_id, rank_given, score, trec_rank)
with final as (
    select
        $run_id as run_id,
        query_id,
        doc_id,
        rank_given,
        score,
        row_number() over (
            partition by query_id
            order by trec_float32(score) desc, doc_id desc
        ) as trec_rank
    from stage_run
)

select * from final
