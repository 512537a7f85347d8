-- run_columns_verdict: each line the column reader read (run_columns_read.sql) with its fields
-- converted, and whether line mode would read it the same way (clean_line). The one statement of
-- that rule, composed (warehouse/resources.py read_sql) by stage_run_columns.sql and
-- sql/oneshot/stage_runs.sql.
-- Grain: one row per line of run_column_lines.
-- Inputs: run_column_lines, a CTE of the composing query (file_id, query_id, q0, doc_id,
-- rank_text, score_text, tag, first_tag: the tag of the file's first data line, NULL when its head
-- holds none, which fails every line); $strict, the macros of run_field_rules.sql, and
-- $may_hold_tab/_cr/_soh/_vt/_ff (false where no file read may hold that byte: a check no line can
-- fail costs only time).
-- trec_eval: clean_line is false when a field is empty (a doubled space), holds a tab, CR or U+0001
-- (line mode splits on the first two and refuses the third), when the line is a comment (first
-- field starting with '#'), its tag is not the file's first line's (one file, one run), or its
-- score or rank breaks run_field_rules.sql (checked there in the form for whitespace-free fields,
-- so a score holding VT or FF is sent to line mode here).
select
    file_id,
    query_id,
    doc_id,
    try_cast(rank_text as bigint) as rank_given,
    try_cast(score_text as double) as score,
    coalesce(not (
        query_id is null or q0 is null or doc_id is null
        or rank_text is null or score_text is null or tag is null
        or starts_with(query_id, '#')
        or tag <> first_tag
        or ($may_hold_tab and contains(concat(query_id, q0, doc_id, rank_text, score_text, tag), chr(9)))
        or ($may_hold_cr and contains(concat(query_id, q0, doc_id, rank_text, score_text, tag), chr(13)))
        or ($may_hold_soh and contains(concat(query_id, q0, doc_id, rank_text, score_text, tag), chr(1)))
        or ($may_hold_vt and contains(score_text, chr(11)))
        or ($may_hold_ff and contains(score_text, chr(12)))
        or not run_score_ok(score_text)
        or not run_rank_ok(rank_text, $strict)
    ), false) as clean_line
from run_column_lines
