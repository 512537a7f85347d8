-- qrels_set_id: the staged qrels set's id.
-- Grain: one row. Inputs: qrels_sets, $name.
-- trec_eval: none (what Spark computed is stored as it is).
select qrels_set_id from qrels_sets where name = $name
