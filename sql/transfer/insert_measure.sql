-- insert_measure: a measure's description, as measure.sql read it from another warehouse.
-- Grain: one row inserted, its measure returned. Inputs: a $name per column of measure.sql.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
insert into measures (measure, trec_name, family, aggregate, description)
values ($measure, $trec_name, $family, $aggregate, $description)
returning measure
