-- insert_qrels_set: a qrels set's row, as qrels_set.sql read it from another warehouse, with this
-- warehouse's new qrels_set_id (warehouse/store/transfer.py, ship_qrels).
-- Grain: one row inserted, its qrels_set_id returned. Inputs: a $name per column of qrels_set.sql
-- but qrels_set_id.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
insert into qrels_sets (name, description, source_path, sha256, text_sha256, query_count, judgment_count, created_at)
values ($name, $description, $source_path, $sha256, $text_sha256, $query_count, $judgment_count, $created_at)
returning qrels_set_id
