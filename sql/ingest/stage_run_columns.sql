-- stage_run_columns: a run file read as six space-separated text columns, the fast way in.
-- Grain: one row per data line (line numbers are not kept: a file this reader does not take
-- cleanly goes through line mode instead, which names lines; see warehouse/ingest.py).
-- Inputs: $path, $compression, $skip (the comment and blank lines heading the file).
-- Why: reading columns is ~3x faster than reading lines and splitting them (stage_fields.sql),
-- but the column reader sees single spaces only, reads quirks of its own (a tab inside a field,
-- an empty field), and would convert numbers more loosely than trec_eval reads them; so every
-- field stays text here and run_columns_clean.sql decides whether this reading is exactly the
-- one line mode would give. Any read error simply means "use line mode".
create or replace temp table stage_run_columns as
select
    query_id,
    q0,
    doc_id,
    rank_text,
    score_text,
    tag
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
