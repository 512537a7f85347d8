-- qrels has subtopics: whether the qrels set holds subtopic judgments, which the diversity
-- measures (sql/measures/diversity.sql) need.
-- Grain: one row. Inputs: qrels_subtopics (schema 008); $qrels_set_id.
select count(*) > 0 as has_subtopics
from qrels_subtopics
where qrels_set_id = $qrels_set_id
