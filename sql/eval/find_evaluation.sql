-- find evaluation: the evaluation (a qrels set under one settings key) whose scores are stored.
-- Grain: one row, or none when the qrels set was never evaluated with these settings.
-- Inputs: evaluations; $qrels_set_id, $settings_key (warehouse.evaluation.evaluator.Settings.key).
-- trec_eval: none (bookkeeping: where the scores of these settings are stored).
select evaluation_id
from evaluations
where qrels_set_id = $qrels_set_id
  and settings_key = $settings_key
