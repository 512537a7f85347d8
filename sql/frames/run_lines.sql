-- run_lines: a run frame written as a TREC run file (query Q0 doc rank score tag, space-separated),
-- in the frame's order, to be ingested as a file is. Composed: [path] is the file's quoted
-- path (irw's own temporary folder, checked to hold no quote: COPY takes no parameter for it).
-- Grain: one line per frame row. Inputs: frame_roles (run_roles.sql), $tag.
-- trec_eval: none (the frame becomes a TREC file, which is then ingested and checked as any file is).
copy (select query, 'Q0', doc, rank, score_text, $tag from frame_roles order by irw_row)
to /* path */ (format csv, delimiter ' ', header false, quote '', escape '')
