-- remove user measure: a user measure and everything computed with its definition: its scores
-- under every parameter value (NAME and NAME(...)), their records, stored tests and catalogue rows.
-- Grain: deletes rows of scores, evaluated, significance_results, measures and user_measures.
-- Inputs: $name; $pattern, the prefix of its names with parameters (NAME followed by a parenthesis).
-- trec_eval: none. Run in one transaction by warehouse/evaluation/user_measures.py (rm, add --replace).
delete from scores
where measure = $name or substr(measure, 1, length($pattern)) = $pattern;

delete from evaluated
where measure = $name or substr(measure, 1, length($pattern)) = $pattern;

delete from significance_results
where measure = $name or substr(measure, 1, length($pattern)) = $pattern;

delete from measures
where measure = $name or substr(measure, 1, length($pattern)) = $pattern;

delete from user_measures
where name = $name
