-- qrels_set_id: the id of the stored qrels set of a name (warehouse/store/catalog.py, qrels_set_id).
-- Grain: one row, or none. Inputs: qrels_sets, $name.
-- trec_eval: none.
select qrels_set_id from qrels_sets where name = $name
