-- set_definition_hash: the hash of a user measure's definition (schema 13) on its copied
-- description, so that its copied scores are read as its.
-- Grain: one row (the measure). Inputs: $measure, $definition_hash.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
update measures set definition_hash = $definition_hash where measure = $measure
