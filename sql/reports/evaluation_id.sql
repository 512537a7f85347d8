-- evaluation_id: the stored evaluations (qrels set x settings) whose scores a report reads.
-- Grain: one row per settings key that was evaluated with this qrels set; a key not evaluated yet
-- has no row.
-- Inputs: evaluations; $qrels_set_id, $settings_keys (warehouse.evaluation.evaluator.Settings.key, one per
-- relevance level the report's measures use: AP(rel=2) reads the evaluation at level 2).
-- trec_eval: none (bookkeeping: which stored evaluations the report reads).
select settings_key, evaluation_id
from evaluations
where qrels_set_id = $qrels_set_id
  and settings_key in (select unnest($settings_keys))
order by settings_key
