-- rename_qrels_set: a stored qrels set's new name (`irw rename qrels`).
-- Grain: one row (the set). Inputs: $qrels_set_id, $name. Judgments, evaluations and scores are
-- keyed by qrels_set_id and stay attached.
-- trec_eval: none.
update qrels_sets set name = $name where qrels_set_id = $qrels_set_id
