-- stage_qrels_columns: a qrels file read as four space-separated columns (qid iter docid grade),
-- the fast way in, with each line's verdict on whether line mode would read it the same way.
-- Grain: one row per data line (line numbers are not kept: a file this reader does not take
-- cleanly goes through line mode instead, which names lines; see warehouse/ingestion/files.py).
-- Inputs: $path (read as the one file it names: literal_path of line_mode.sql), $compression, $row_cap
-- (at most $row_cap + 1 rows are staged), and
-- $may_hold_tab/_cr/_soh (false when warehouse/ingestion/files.py found no such byte in the plain file). A plain file holding CR other than in CR LF line ends, or
-- U+0001, is refused before it gets here; a compressed one is checked by Python beside this read.
-- trec_eval: none (reading the staged file, before anything is stored).
-- Why: as for runs (stage_run_columns.sql), reading columns is several times faster than reading
-- lines and splitting them (stage_fields.sql, then qrels_problems.sql): on a 98k-line qrels file
-- ~35 ms of a ~0.3 s evaluation. The reader sees single spaces only, so every field is read as
-- text and judged here with line mode's rules (trec_eval's): clean_line is false when a field is
-- empty (a doubled space), holds a tab, CR or U+0001, when the line is a comment (first field
-- starting with '#'), or when the grade is not an integer in range. A line of any other field
-- count is a read error, and any read error simply means "use line mode": 3-field qrels
-- (`qid docid grade`) and run files given as qrels are read there. columns_clean.sql adds
-- the whole-file checks.
create or replace temp table stage_qrels_columns as
with lines as (
    select *
    from read_csv(
        literal_path($path),
        columns = {'query_id': 'VARCHAR', 'iter': 'VARCHAR', 'doc_id': 'VARCHAR', 'grade_text': 'VARCHAR'},
        delim = ' ',
        quote = '',
        escape = '',
        header = false,
        auto_detect = false,
        strict_mode = true,
        compression = $compression
    )
),

final as (
    select
        query_id,
        doc_id,
        try_cast(grade_text as integer) as grade,
        coalesce(not (
            query_id is null or iter is null or doc_id is null or grade_text is null
            or starts_with(query_id, '#')
            or ($may_hold_tab and contains(concat(query_id, iter, doc_id, grade_text), chr(9)))
            or ($may_hold_cr and contains(concat(query_id, iter, doc_id, grade_text), chr(13)))
            or ($may_hold_soh and contains(concat(query_id, iter, doc_id, grade_text), chr(1)))
            or not regexp_full_match(grade_text, '[+-]?[0-9]+')
            or try_cast(grade_text as integer) is null
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
