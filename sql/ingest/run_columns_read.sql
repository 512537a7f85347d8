-- run_columns_read: run files as the column reader reads them: six space-separated fields, each as
-- text, nothing guessed. The one statement of the reader's options, composed (warehouse/resources.py
-- read_sql) by stage_run_columns.sql (one file ingested) and sql/oneshot/stage_runs.sql (the files
-- of one `irw trec-eval` call at once).
-- Grain: one row per line the reader returns (comment and blank lines heading a file skipped by $skip).
-- Inputs: $path (a list of files, each read as the one file it names: literal_path of
-- line_mode.sql), $skip (lines to skip at the head of each file), $compression ('none', 'gzip', 'zstd').
-- trec_eval: its fields are split on whitespace; this reader sees single spaces only and judges
-- nothing: run_columns_verdict.sql says which lines it reads as line mode (and trec_eval) would.
select
    query_id,
    q0,
    doc_id,
    rank_text,
    score_text,
    tag,
    filename
from read_csv(
    list_transform($path, lambda file_path: literal_path(file_path)),
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
    compression = $compression,
    filename = true
)
