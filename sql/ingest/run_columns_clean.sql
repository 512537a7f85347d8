-- run_columns_clean: whether stage_run_columns (read by stage_run_columns.sql) holds exactly what
-- line mode would read from the file, with nothing line mode would refuse.
-- Grain: one row. Inputs: stage_run_columns.
-- clean is false when any line is not clean_line, the file has no data line, a (query, doc) pair
-- may repeat (equal 64-bit hashes; line mode compares the strings). Then
-- warehouse/ingest.py reads the file again in line mode, which reports each problem by line, as
-- trec_eval would fail.
with file_check as (
    select
        count(*) as row_count,
        count(*) filter (where not clean_line) as unclean_lines,
        count(distinct hash(query_id, doc_id)) as distinct_pairs
    from stage_run_columns
),

final as (
    select
        row_count > 0
            and unclean_lines = 0
            and distinct_pairs = row_count as clean
    from file_check
)

select * from final
