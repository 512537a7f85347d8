-- stage_runs: the run files of one `irw trec-eval` call read at once by the column reader, each
-- line as sql/ingest/stage_run_columns.sql reads the line of one file (the same columns, the same
-- clean_line rule), with the file it came from.
-- Grain: one row per data line of each distinct file (file_id: oneshot_run_files' number of the file).
-- Inputs: $paths (the distinct plain files, each beginning with a run line: no header to skip),
-- oneshot_run_files (file_id, path as read_csv names it, first_tag: the tag of the file's first line), $may_hold_tab ... (true
-- where any of the files may hold that byte: a check a file cannot fail costs only time), $strict,
-- the macros of sql/ingest/line_mode.sql and run_field_rules.sql.
-- trec_eval: a line is taken here only as the one-file reader takes it (six space-separated fields,
-- every tag the first line's, a score and rank trec_eval reads); a file with any other line, or a
-- (query, doc) pair twice, is read again by warehouse/ingest.py alone, which names the line.
-- Why: staging 100 DL20-sized runs one by one cost about fifteen statements each (~1 s of
-- statement overhead in all); read together they are one statement.
create or replace temp table stage_runs_columns as
with lines as (
    select *
    from read_csv(
        $paths,
        columns = {
            'query_id': 'VARCHAR', 'q0': 'VARCHAR', 'doc_id': 'VARCHAR',
            'rank_text': 'VARCHAR', 'score_text': 'VARCHAR', 'tag': 'VARCHAR'
        },
        delim = ' ',
        quote = '',
        escape = '',
        header = false,
        auto_detect = false,
        strict_mode = true,
        filename = true
    )
),

final as (
    select
        f.file_id,
        l.query_id,
        l.doc_id,
        try_cast(l.rank_text as bigint) as rank_given,
        try_cast(l.score_text as double) as score,
        coalesce(not (
            l.query_id is null or l.q0 is null or l.doc_id is null
            or l.rank_text is null or l.score_text is null or l.tag is null
            or starts_with(l.query_id, '#')
            or l.tag <> f.first_tag
            or ($may_hold_tab and contains(concat(l.query_id, l.q0, l.doc_id, l.rank_text, l.score_text, l.tag), chr(9)))
            or ($may_hold_cr and contains(concat(l.query_id, l.q0, l.doc_id, l.rank_text, l.score_text, l.tag), chr(13)))
            or ($may_hold_soh and contains(concat(l.query_id, l.q0, l.doc_id, l.rank_text, l.score_text, l.tag), chr(1)))
            or ($may_hold_vt and contains(l.score_text, chr(11)))
            or ($may_hold_ff and contains(l.score_text, chr(12)))
            or not run_score_ok(l.score_text)
            or not run_rank_ok(l.rank_text, $strict)
        ), false) as clean_line
    from lines as l
    inner join oneshot_run_files as f
        on f.path = l.filename
)

select * from final
