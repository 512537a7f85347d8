-- evaluations: the stored evaluations with their qrels set's name, whose scores `irw copy` copies.
-- Grain: one row per evaluation, in the order they were made. Inputs: evaluations, qrels_sets.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select e.evaluation_id, q.name from evaluations as e inner join qrels_sets as q
on q.qrels_set_id = e.qrels_set_id order by e.evaluation_id
