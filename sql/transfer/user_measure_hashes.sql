-- user_measure_hashes: each user measure the target defines, with its definition's hash (a copied
-- score computed with another definition of the same name is left behind).
-- Grain: one row per user measure. Inputs: user_measures.
-- trec_eval: none.
select name, definition_hash from user_measures
