-- first_problems: the first problems of a staged file, shown with its error (warehouse/ingestion/files.py,
-- _collect_problems): a top-N DuckDB keeps while it reads, never every problem at once. Composed
-- with one problems file (ingest/*_problems.sql), whose query stands where [problems] is.
-- Grain: one row per problem shown (at most $shown), by line then reason. Inputs: the problems
-- query's, $shown.
-- trec_eval: none (reading the staged file, before anything is stored).
select line_no, reason from (
/* problems */
) order by line_no, reason limit $shown
