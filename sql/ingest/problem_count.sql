-- problem_count: how many problems a staged file has, said when more than are shown. Composed as
-- first_problems.sql is: a problems query stands where [problems] is.
-- Grain: one row. Inputs: the problems query's.
-- trec_eval: none (reading the staged file, before anything is stored).
select count(*) from (
/* problems */
)
