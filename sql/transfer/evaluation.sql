-- evaluation: a stored evaluation's settings as they travel to another warehouse
-- (warehouse/store/transfer.py, _copy_scores; insert_evaluation.sql).
-- Grain: one row, or none. Inputs: evaluations, $evaluation_id.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select settings_key, relevance_level, depth, judged_only, complete, compat, norel_queries, created_at
from evaluations where evaluation_id = $evaluation_id
