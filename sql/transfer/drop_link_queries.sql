-- drop_link_queries: the run's query ids sent to the target to read its judgments of them
-- (transfer._link_in_source), once read.
-- Grain: none (DDL). Inputs: link_queries.
-- trec_eval: none.
drop table if exists link_queries
