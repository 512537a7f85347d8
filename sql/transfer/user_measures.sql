-- user_measures: the measures added with `irw measures add`, as they travel to another warehouse
-- (insert_user_measure.sql).
-- Grain: one row per user measure, by name. Inputs: user_measures.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select name, definition, definition_hash, source_path, parameters, aggregate, description, added_at
from user_measures order by name
