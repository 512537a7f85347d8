-- insert_user_measure: a user measure as user_measures.sql read it from another warehouse.
-- Grain: one row inserted. Inputs: a $name per column of user_measures.sql.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
insert into user_measures (name, definition, definition_hash, source_path, parameters, aggregate, description,
    added_at)
values ($name, $definition, $definition_hash, $source_path, $parameters, $aggregate, $description,
    $added_at)
