-- run_nul: the first line of a stored run holding NUL (U+0000) in its query or document id, which
-- PostgreSQL's text cannot hold: a run stored before ingest refused NUL (docs/input-formats.md).
-- Grain: one row, or none. Inputs: run_rows, runs, $name.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select r.query_id, r.doc_id from run_rows as r inner join runs as t on t.run_id = r.run_id
where t.name = $name and (contains(r.query_id, chr(0)) or contains(r.doc_id, chr(0))) limit 1
