-- qrels_set_content: a stored qrels set's id and content (the sha256 of its text, schema 22, else of
-- its file), as run_content.sql for runs.
-- Grain: one row, or none. Inputs: qrels_sets, $name.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select qrels_set_id, coalesce(text_sha256, sha256) as content_sha256 from qrels_sets where name = $name
