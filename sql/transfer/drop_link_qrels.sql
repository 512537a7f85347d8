-- drop_link_qrels: the target's judgments of the run's queries, read into the staging database
-- (transfer._link_in_source), once the judged rows are sent.
-- Grain: none (DDL). Inputs: link_qrels, link_qrels_more.
-- trec_eval: none.
drop table if exists link_qrels;

drop table if exists link_qrels_more
