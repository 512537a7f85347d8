-- user_measure_names: the measures added with `irw measures add` the target holds.
-- Grain: one row per user measure. Inputs: user_measures.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select name from user_measures
