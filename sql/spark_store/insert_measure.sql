-- insert_measure: a measure's description as measures.sql read it from Spark, unless staged already.
-- Grain: one row inserted, or none. Inputs: a $name per column of measures.sql.
-- trec_eval: none (what Spark computed is stored as it is).
insert into measures (measure, trec_name, family, aggregate, description)
values ($measure, $trec_name, $family, $aggregate, $description)
on conflict do nothing
