-- qrels_set_names: the stored qrels sets' names, for choosing the one a command means when none is
-- named (warehouse/store/catalog.py, qrels_name).
-- Grain: one row per stored qrels set, by name. Inputs: qrels_sets.
-- trec_eval: none.
select name from qrels_sets order by name
