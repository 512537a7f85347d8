-- evaluation_of_settings: the target's evaluation of a qrels set with these settings, if any.
-- Grain: one row, or none (settings_key is unique per qrels set). Inputs: evaluations,
-- $qrels_set_id, $settings_key.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select evaluation_id from evaluations where qrels_set_id = $qrels_set_id and settings_key = $settings_key
