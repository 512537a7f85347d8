-- stage_runs: the run files of one `irw trec-eval` call read at once by the column reader, each
-- line as sql/ingest/stage_run_columns.sql reads the line of one file (the same reader,
-- sql/ingest/run_columns_read.sql, and clean_line rule, run_columns_verdict.sql, composed here),
-- with the file it came from.
-- Grain: one row per data line of each distinct file (file_id: oneshot_run_files' number of the file).
-- Inputs: $path (the distinct plain files, each beginning with a run line: $skip 0, $compression 'none'),
-- oneshot_run_files (file_id, path as read_csv names it, first_tag: the tag of the file's first line), $may_hold_tab ... (true
-- where any of the files may hold that byte: a check a file cannot fail costs only time), $strict,
-- the macros of sql/ingest/line_mode.sql and run_field_rules.sql.
-- trec_eval: a line is taken here only as the one-file reader takes it (six space-separated fields,
-- every tag the first line's, a score and rank trec_eval reads); a file with any other line, or a
-- (query, doc) pair twice, is read again by warehouse/ingestion/files.py alone, which names the line.
-- Why: staging 100 DL20-sized runs one by one cost about fifteen statements each (~1 s of
-- statement overhead in all); read together they are one statement.
create or replace temp table stage_runs_columns as
with run_column_lines as (
    select
        f.file_id,
        c.query_id,
        c.q0,
        c.doc_id,
        c.rank_text,
        c.score_text,
        c.tag,
        f.first_tag
    from "ingest/run_columns_read.sql" as c
    inner join oneshot_run_files as f
        on f.path = c.filename
),

final as (
    select
        file_id,
        query_id,
        doc_id,
        rank_given,
        score,
        clean_line
    from "ingest/run_columns_verdict.sql" as v
)

select * from final
