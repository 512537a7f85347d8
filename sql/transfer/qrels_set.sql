-- qrels_set: a stored qrels set's row as it travels to another warehouse (warehouse/store/transfer.py,
-- ship_qrels); its qrels_set_id is the source's, every other column is inserted as it is
-- (insert_qrels_set.sql).
-- Grain: one row, or none. Inputs: qrels_sets, $name.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select qrels_set_id, name, description, source_path, sha256, text_sha256, query_count, judgment_count, created_at
from qrels_sets where name = $name
