-- edit_qrels_set_description: a stored qrels (or prefs) set's new description, given with
-- `irw ingest qrels|prefs --replace` for bytes the set already holds (its judgments and scores stay).
-- Grain: one row (the set). Inputs: $qrels_set_id, $description.
-- trec_eval: none.
update qrels_sets set description = $description where qrels_set_id = $qrels_set_id
