-- qrels has subtopics: whether the qrels set holds subtopic judgments, which the diversity
-- measures (sql/measures/diversity.sql) and the judgment-group measures (trec_eval -R qrels_jg,
-- sql/measures/judgment_groups.sql: the groups are stored as subtopics) need; asked by
-- check_qrels_for (warehouse/evaluation/evaluator.py) before either is computed.
-- Grain: one row. Inputs: qrels_subtopics (schema 008); $qrels_set_id.
-- trec_eval: none (a check made before anything is computed).
select count(*) > 0 as has_subtopics
from qrels_subtopics
where qrels_set_id = $qrels_set_id
