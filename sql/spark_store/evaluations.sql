-- evaluations: the evaluations Spark made (its in-session table), with their settings, to be
-- staged with sql/transfer/insert_evaluation.sql under staging's qrels set.
-- Grain: one row per evaluation. Inputs: evaluations (Spark's).
-- trec_eval: none (what Spark computed is stored as it is).
select evaluation_id, settings_key, relevance_level, depth, judged_only, complete, compat, norel_queries,
    created_at
from evaluations
