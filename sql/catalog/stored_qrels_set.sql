-- stored_qrels_set: what ingest needs to know of a stored qrels set of a name, and whether it
-- holds subtopic judgments (schema 8) or preference judgments (schema 14); its description, which
-- a set replaced by other content keeps unless another is given. content_sha256 is what the set is
-- known by (its text's sha256, schema 22, else its file's); sha256 its file's bytes', which a file
-- ingested again matches before its text is read.
-- Grain: one row, or none. Inputs: qrels_sets, qrels_subtopics, preference_judgments, $name.
-- trec_eval: none.
select
    s.qrels_set_id,
    coalesce(s.text_sha256, s.sha256) as content_sha256,
    s.judgment_count,
    s.query_count,
    exists (select 1 from qrels_subtopics as t where t.qrels_set_id = s.qrels_set_id) as subtopics,
    exists (select 1 from preference_judgments as p where p.qrels_set_id = s.qrels_set_id) as prefs,
    s.description,
    s.sha256
from qrels_sets as s
where s.name = $name
