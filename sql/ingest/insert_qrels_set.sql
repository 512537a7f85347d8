-- insert_qrels_set: the row of a new qrels set, counted from its staged lines.
-- Grain: one row (the set); returns its qrels_set_id.
-- Inputs: the view stage_qrels (the validated lines), $name, $description, $source_path, $sha256
-- (the file's bytes'), $text_sha256 (its text's, schema 22; NULL when the file was not hashed).
-- trec_eval: a qrels file's queries are its distinct first fields; judgments are its lines.
insert into qrels_sets (name, description, source_path, sha256, text_sha256, query_count, judgment_count)
select
    $name,
    $description,
    $source_path,
    $sha256,
    $text_sha256,
    count(distinct query_id),
    count(*)
from stage_qrels
returning qrels_set_id
