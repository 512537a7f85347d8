-- run_content: a stored run's id and content (the sha256 of its text, schema 21, else of its file):
-- `irw copy` copies a run the target holds with other content only with --replace, and leaves one
-- with the same alone.
-- Grain: one row, or none. Inputs: runs, $name.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select run_id, coalesce(text_sha256, sha256) as content_sha256 from runs where name = $name
