-- add user measure: stores a checked measure file (warehouse/evaluation/user_measures.py checks it first).
-- Grain: one row of user_measures.
-- Inputs: $name, $definition (the file's text), $definition_hash (its sha256), $source_path,
-- $parameters (name=default, ...), $aggregate (mean, sum or geo), $description.
-- trec_eval: none.
insert into user_measures (name, definition, definition_hash, source_path, parameters, aggregate, description)
values ($name, $definition, $definition_hash, $source_path, $parameters, $aggregate, $description)
