-- stage_run_columns: a run file read as six space-separated columns, the fast way in, with each
-- line's verdict on whether line mode would read it the same way.
-- Grain: one row per data line (line numbers are not kept: a file this reader does not take
-- cleanly goes through line mode instead, which names lines; see warehouse/ingestion/files.py).
-- Inputs: $path (a list of the one file), $compression, $skip (the comment and blank lines heading the file), $first_tag
-- (the tag of the first data line; NULL when the head holds none, which fails every line), $strict, the
-- macros of run_field_rules.sql, $row_cap (at most $row_cap + 1 rows are staged), and $may_hold_tab/_cr/_soh/_vt/_ff (false when warehouse/ingestion/files.py
-- found no such byte in the plain file: memchr over 254 MB costs ~0.05 s, searching 7M rows' fields
-- in SQL ~0.1-0.3 s per byte). A plain file holding CR other than in CR LF line ends, or U+0001, is
-- refused before it gets here; a compressed one is checked by Python beside this read.
-- trec_eval: none (reading the staged file, before anything is stored).
-- Why: reading columns is ~3x faster than reading lines and splitting them (stage_fields.sql),
-- but the column reader sees single spaces only and converts numbers more loosely than trec_eval
-- reads them, so every field is read as text (run_columns_read.sql) and judged with line mode's
-- own rules (run_columns_verdict.sql, both composed here; the tag is then not stored per line: 7M
-- copies of it cost ~110 MB). columns_clean.sql adds the whole-file checks. Any read error simply
-- means "use line mode".
create or replace temp table stage_run_columns as
with run_column_lines as (
    select
        0 as file_id,
        query_id,
        q0,
        doc_id,
        rank_text,
        score_text,
        tag,
        $first_tag as first_tag
    from "ingest/run_columns_read.sql" as c
),

final as (
    select
        query_id,
        doc_id,
        rank_given,
        score,
        clean_line
    from "ingest/run_columns_verdict.sql" as v
)

-- a line line mode must read ends the read at once (error: the file goes to line mode, which names
-- its problems without staging the rest), and the reader stages at most $row_cap + 1 rows (a larger
-- file goes to line mode too, whose windows check a file before staging it whole): a file that turns
-- out to repeat a (query, doc) pair (columns_clean.sql) is never staged past what memory holds
select *
from final
where case when clean_line then true else error('irw: a line for line mode') end
limit $row_cap + 1
