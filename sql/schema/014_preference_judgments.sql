-- Schema version 14: preference judgments (trec_eval -R prefs and -R qrels_prefs), for the
-- prefs_* measures (sql/measures/prefs.sql).
-- Grain: preference_judgments one row per qrels set x query x judgment group x sub-group x doc
-- (a line of the file); preference_pairs one row per qrels set x query x judgment group x
-- (preferred doc, other doc).
-- Inputs: written by warehouse/ingestion/files.py (`irw ingest prefs FILE`, sql/ingest/insert_prefs.sql),
-- removed with their qrels set (warehouse/store/catalog.py).
-- trec_eval: a prefs file is `qid jg jsg docno rel_level`; within a sub-group (jsg) a document
-- of a higher rel_level is preferred to one of a lower level, and within a judgment group (jg, a
-- user) preferences are transitive across its sub-groups. preference_pairs holds that transitive
-- closure, computed once at ingest, where a cycle is refused. A prefs set is a qrels set with rows
-- here; its `qrels` rows hold one grade per (query, doc), 1 when some group rates the document
-- above 0, else 0, so that the query set and the judged run rows are found as for any qrels set.
create table if not exists preference_judgments (
    qrels_set_id    integer not null,
    query_id        varchar not null,
    jg              varchar not null,
    jsg             varchar not null,
    doc_id          varchar not null,
    rel_level       double not null,
    primary key (qrels_set_id, query_id, jg, jsg, doc_id)
);

create table if not exists preference_pairs (
    qrels_set_id    integer not null,
    query_id        varchar not null,
    jg              varchar not null,
    doc_id          varchar not null,
    other_doc_id    varchar not null,
    primary key (qrels_set_id, query_id, jg, doc_id, other_doc_id)
);
