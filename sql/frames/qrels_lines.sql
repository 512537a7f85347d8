-- qrels_lines: a qrels frame written as a TREC qrels file (query 0 doc grade, space-separated), in
-- the frame's order, as run_lines.sql.
-- Grain: one line per frame row. Inputs: frame_roles (qrels_roles.sql).
-- trec_eval: none (the frame becomes a TREC file, which is then ingested and checked as any file is).
copy (select query, '0', doc, grade from frame_roles order by irw_row)
to /* path */ (format csv, delimiter ' ', header false, quote '', escape '')
