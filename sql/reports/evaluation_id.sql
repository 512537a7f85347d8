-- evaluation_id: the stored evaluation (qrels set x settings) whose scores a report reads.
-- Grain: one row, or none when nothing was evaluated with these settings yet.
-- Inputs: evaluations; $qrels_set_id, $settings_key (warehouse.evaluate.Settings.key, with the
-- relevance level of the measure: AP(rel=2) reads the evaluation at level 2).
select evaluation_id
from evaluations
where qrels_set_id = $qrels_set_id
  and settings_key = $settings_key
