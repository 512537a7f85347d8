-- qrels_set_names: the qrels sets `irw copy` copies, in the order they were stored.
-- Grain: one row per stored qrels set. Inputs: qrels_sets.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select name from qrels_sets order by qrels_set_id
