-- columns_clean: whether a file read by a column reader (stage_run_columns.sql into
-- stage_run_columns, stage_qrels_columns.sql into stage_qrels_columns) holds exactly what line mode
-- would read from it, with nothing line mode would refuse.
-- Grain: one row. Inputs: $stage_table, the name of that table (one of those two, given by
-- warehouse/ingestion/files.py; a value, read through query_table), with its query_id, doc_id and
-- clean_line columns; $row_cap, the most rows the reader stages (it stops one past it).
-- trec_eval: none (a check of the staged file, before anything is stored).
-- clean is false when any line is not clean_line, the file has no data line or more than $row_cap,
-- or a (query, doc) pair may repeat (equal 64-bit hashes; line mode compares the strings; trec_eval
-- refuses a repeated document in a run and a repeated judgment in qrels). Then warehouse/ingestion/files.py reads the
-- file again in line mode, which reports each problem by line, as trec_eval would fail.
with file_check as (
    select
        count(*) as row_count,
        count(*) filter (where not clean_line) as unclean_lines,
        count(distinct hash(query_id, doc_id)) as distinct_pairs
    from query_table($stage_table)
),

final as (
    select
        row_count > 0
            and row_count <= $row_cap
            and unclean_lines = 0
            and distinct_pairs = row_count as clean
    from file_check
)

select * from final
