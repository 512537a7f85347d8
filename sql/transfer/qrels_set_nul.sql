-- qrels_set_nul: the first judgment of a stored qrels set holding NUL (U+0000) in its query or
-- document id, as run_nul.sql for runs.
-- Grain: one row, or none. Inputs: qrels, qrels_sets, $name.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select r.query_id, r.doc_id from qrels as r inner join qrels_sets as t on t.qrels_set_id = r.qrels_set_id
where t.name = $name and (contains(r.query_id, chr(0)) or contains(r.doc_id, chr(0))) limit 1
