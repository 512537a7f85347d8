-- staged_runs_clean: how many of the files staged by stage_runs.sql the column reader took cleanly,
-- by sql/ingest/columns_clean.sql's rule for one file.
-- Grain: one row (the count).
-- Inputs: stage_runs_columns.
-- trec_eval: a file is clean when it has a line, every line is clean and no (query, doc) pair
-- repeats; warehouse/evaluation/oneshot.py reads every file alone (naming the problem's line) unless all are.
with file_check as (
    select
        file_id,
        count(*) as row_count,
        count(*) filter (where not clean_line) as unclean_lines,
        count(distinct hash(query_id, doc_id)) as distinct_pairs
    from stage_runs_columns
    group by file_id
),

final as (
    select count(*) filter (where row_count > 0 and unclean_lines = 0 and distinct_pairs = row_count) as clean
    from file_check
)

select * from final
