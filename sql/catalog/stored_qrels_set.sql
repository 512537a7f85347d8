-- stored_qrels_set: what ingest needs to know of a stored qrels set of a name, and whether it
-- holds subtopic judgments (schema 8) or preference judgments (schema 14); its description, which
-- a set replaced by other bytes keeps unless another is given.
-- Grain: one row, or none. Inputs: qrels_sets, qrels_subtopics, preference_judgments, $name.
select
    s.qrels_set_id,
    s.sha256,
    s.judgment_count,
    s.query_count,
    exists (select 1 from qrels_subtopics as t where t.qrels_set_id = s.qrels_set_id) as subtopics,
    exists (select 1 from preference_judgments as p where p.qrels_set_id = s.qrels_set_id) as prefs,
    s.description
from qrels_sets as s
where s.name = $name
