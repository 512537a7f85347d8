-- qrels_set_count: how many qrels sets are stored (an empty warehouse has nothing to export).
-- Grain: one row. Inputs: qrels_sets.
-- trec_eval: none.
select count(*) from qrels_sets
