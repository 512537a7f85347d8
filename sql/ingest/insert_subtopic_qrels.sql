-- insert_subtopic_qrels: copies a validated staged diversity qrels file (`qid subtopic docid grade`)
-- into qrels_subtopics, and one grade per (query, doc) into qrels, under $qrels_set_id.
-- Grain: qrels_subtopics one row per (query, subtopic, doc); qrels one row per (query, doc).
-- Inputs: stage_fields (checked by subtopic_qrels_problems.sql).
-- trec_eval: none (ndeval's file); the qrels rows the ordinary measures read are as follows.
-- Ordinary measures read qrels: a document's grade there is the highest it has for any subtopic
-- of the query (relevant to the query when relevant to any of its subtopics, as ndeval's own MAP
-- counts it).
insert into qrels_subtopics (qrels_set_id, query_id, subtopic, doc_id, grade)
select
    $qrels_set_id as qrels_set_id,
    fields[1] as query_id,
    fields[2] as subtopic,
    fields[3] as doc_id,
    cast(fields[4] as integer) as grade
from stage_fields;

insert into qrels (qrels_set_id, query_id, doc_id, grade)
select
    qrels_set_id,
    query_id,
    doc_id,
    max(grade) as grade
from qrels_subtopics
where qrels_set_id = $qrels_set_id
group by qrels_set_id, query_id, doc_id
