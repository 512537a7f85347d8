-- Schema version 8: subtopic judgments (ndeval's qrels), for the diversity measures.
-- Grain: qrels_subtopics one row per qrels set x query x subtopic x doc.
-- Inputs: written by warehouse/ingestion/files.py (`irw ingest qrels FILE --subtopics`, sql/ingest/
-- insert_subtopic_qrels.sql), removed with its qrels set (warehouse/store/catalog.py).
-- trec_eval: none (ndeval's judgments; the ordinary measures read qrels, as follows).
-- ndeval: a diversity qrels file is `qid subtopic docid grade`; one document may be judged for
-- several subtopics of a query. A subtopic set keeps every line here, and its `qrels` rows hold one
-- grade per (query, doc): the highest of its subtopic grades, which every ordinary measure reads.
-- A qrels set is a subtopic set when it has rows here (sql/measures/diversity.sql reads them).
create table if not exists qrels_subtopics (
    qrels_set_id    integer not null,
    query_id        varchar not null,
    subtopic        varchar not null,
    doc_id          varchar not null,
    grade           integer not null,
    primary key (qrels_set_id, query_id, subtopic, doc_id)
);
