-- measures: the descriptions of the measures Spark computed (Spark's in-session measures table).
-- Grain: one row per measure. Inputs: measures (Spark's).
-- trec_eval: none (what Spark computed is stored as it is).
select measure, trec_name, family, aggregate, description from measures
