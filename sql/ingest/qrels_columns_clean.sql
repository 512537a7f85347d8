-- qrels_columns_clean: whether stage_qrels_columns (read by stage_qrels_columns.sql) holds exactly
-- what line mode would read from the file, with nothing line mode would refuse.
-- Grain: one row. Inputs: stage_qrels_columns.
-- clean is false when any line is not clean_line, the file has no data line, or a (query, doc)
-- pair may repeat (equal 64-bit hashes; line mode compares the strings, and trec_eval refuses a
-- duplicate judgment too). Then warehouse/ingest.py reads the file again in line mode, which
-- reports each problem by line.
with file_check as (
    select
        count(*) as row_count,
        count(*) filter (where not clean_line) as unclean_lines,
        count(distinct hash(query_id, doc_id)) as distinct_pairs
    from stage_qrels_columns
),

final as (
    select
        row_count > 0
            and unclean_lines = 0
            and distinct_pairs = row_count as clean
    from file_check
)

select * from final
