-- stage_run_columns: a run file read as six space-separated columns, the fast way in, with each
-- line's verdict on whether line mode would read it the same way.
-- Grain: one row per data line (line numbers are not kept: a file this reader does not take
-- cleanly goes through line mode instead, which names lines; see warehouse/ingest.py).
-- Inputs: $path, $compression, $skip (the comment and blank lines heading the file), $first_tag
-- (the tag of the first data line; NULL when the head holds none, which fails every line), $strict, the
-- macros of run_field_rules.sql, and $may_hold_tab/_cr/_soh/_vt/_ff (false when warehouse/ingest.py
-- found no such byte in the plain file: memchr over 254 MB costs ~0.05 s, searching 7M rows' fields
-- in SQL ~0.1-0.3 s per byte). A plain file holding CR other than in CR LF line ends, or U+0001, is
-- refused before it gets here; a compressed one is checked by Python beside this read.
-- Why: reading columns is ~3x faster than reading lines and splitting them (stage_fields.sql),
-- but the column reader sees single spaces only and converts numbers more loosely than trec_eval
-- reads them, so every field is read as text and judged here with line mode's own rules.
-- clean_line is false when a field is empty (a doubled space), holds a tab, CR or U+0001 (line
-- mode splits on the first two and refuses the third), when the line is a comment (first field
-- starting with '#'), its tag is not the first line's (one file, one run; the tag is then not
-- stored per line: 7M copies of it cost ~110 MB), or its score or rank breaks run_field_rules.sql
-- (checked there in the form for whitespace-free fields, so a score holding VT or FF is sent to
-- line mode here). columns_clean.sql adds the whole-file checks. Any read error simply means
-- "use line mode".
create or replace temp table stage_run_columns as
with lines as (
    select *
    from read_csv(
        $path,
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
        skip = $skip,
        compression = $compression
    )
),

final as (
    select
        query_id,
        doc_id,
        try_cast(rank_text as bigint) as rank_given,
        try_cast(score_text as double) as score,
        coalesce(not (
            query_id is null or q0 is null or doc_id is null
            or rank_text is null or score_text is null or tag is null
            or starts_with(query_id, '#')
            or tag <> $first_tag
            or ($may_hold_tab and contains(concat(query_id, q0, doc_id, rank_text, score_text, tag), chr(9)))
            or ($may_hold_cr and contains(concat(query_id, q0, doc_id, rank_text, score_text, tag), chr(13)))
            or ($may_hold_soh and contains(concat(query_id, q0, doc_id, rank_text, score_text, tag), chr(1)))
            or ($may_hold_vt and contains(score_text, chr(11)))
            or ($may_hold_ff and contains(score_text, chr(12)))
            or not run_score_ok(score_text)
            or not run_rank_ok(rank_text, $strict)
        ), false) as clean_line
    from lines
)

-- a line line mode must read ends the read at once (error: the file goes to line mode, which names
-- its problems without staging the rest), and the reader stages at most $row_cap + 1 rows (a larger
-- file goes to line mode too, whose windows check a file before staging it whole): a file that turns
-- out to repeat a (query, doc) pair (columns_clean.sql) is never staged past what memory holds
select *
from final
where case when clean_line then true else error('irw: a line for line mode') end
limit $row_cap + 1
