-- remove user measure: a user measure and everything computed with its definition: its scores
-- under every parameter value (NAME and NAME(...), as evaluation.measures.stored_name writes
-- them: `prec(k=20)`), their records, stored tests, stored summaries and catalogue rows.
-- Grain: deletes rows of significance_results, score_summaries, scores, evaluated, measures and
-- user_measures.
-- Inputs: $name; $prefix, the start of its names with parameters: NAME and an opening parenthesis,
-- `prec(` (compared as text, not a LIKE pattern: a name's _ is no wildcard).
-- trec_eval: none. Run in one transaction by warehouse/evaluation/user_measures.py (rm, add --replace).
delete from significance_results
where measure = $name or substr(measure, 1, length($prefix)) = $prefix;

delete from score_summaries -- schema 16
where measure = $name or substr(measure, 1, length($prefix)) = $prefix;

delete from scores
where measure = $name or substr(measure, 1, length($prefix)) = $prefix;

delete from evaluated
where measure = $name or substr(measure, 1, length($prefix)) = $prefix;

delete from measures
where measure = $name or substr(measure, 1, length($prefix)) = $prefix;

delete from user_measures
where name = $name
