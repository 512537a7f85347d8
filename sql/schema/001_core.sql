-- Schema version 1: the warehouse core (qrels sets, judgments, runs, run rows).
-- Grain: qrels_sets one row per named judgment set; qrels one row per set x query x doc;
--        runs one row per ingested run file; run_rows one row per run x query x doc;
--        run_queries one row per run x query (how many documents the run returned for it).
-- Inputs: written only by warehouse/ingestion/files.py, inside one transaction per file.
-- trec_eval: run_rows keeps the score as DOUBLE and the rank column as given (rank_given, never
--            used for ordering). trec_rank is the rank trec_eval 9.0.8 gives the document: score
--            as a 32-bit float descending, then docid descending in byte order. It is computed once
--            at ingest because that sort is ~90% of an evaluation's cost (sql/ingest/insert_run_rows.sql).
-- Why no foreign keys: DuckDB refuses to delete a parent row and its children in one transaction
-- (its documented foreign-key limitation), which `irw rm` needs. Deletes go through
-- warehouse/store/catalog.py, which removes children first.
-- Why run_rows has no primary key: the ART index made a 7M-line ingest 4x slower (12.6 s vs 3.3 s);
-- (run, query, doc) uniqueness is checked in SQL before every insert (sql/ingest/run_problems.sql).

create sequence qrels_set_id_seq start 1;

create table qrels_sets (
    qrels_set_id    integer primary key default nextval('qrels_set_id_seq'),
    name            varchar not null unique,
    description     varchar,
    source_path     varchar,
    sha256          varchar not null,
    query_count     integer not null,
    judgment_count  bigint not null,
    created_at      timestamp not null default current_timestamp
);

create table qrels (
    qrels_set_id    integer not null,
    query_id        varchar not null,
    doc_id          varchar not null,
    grade           integer not null,
    primary key (qrels_set_id, query_id, doc_id)
);

create sequence run_id_seq start 1;

create table runs (
    run_id          integer primary key default nextval('run_id_seq'),
    name            varchar not null unique,
    system          varchar,
    tag             varchar,
    description     varchar,
    parameters      map(varchar, varchar),
    ir_metadata     varchar,
    source_path     varchar,
    sha256          varchar not null,
    file_created_at timestamp,
    ingested_at     timestamp not null default current_timestamp,
    row_count       bigint not null,
    query_count     integer not null
);

create table run_rows (
    run_id          integer not null,
    query_id        varchar not null,
    doc_id          varchar not null,
    rank_given      bigint,
    score           double not null,
    trec_rank       bigint not null
);

-- run_queries: written at ingest beside run_rows, so that evaluations and reports learn which
-- queries a run answers, and how many documents it returned, without scanning run_rows
-- (0.37 s over 25M rows for every leaderboard refresh, even with every score stored).
create table run_queries (
    run_id          integer not null,
    query_id        varchar not null,
    num_ret         bigint not null,
    primary key (run_id, query_id)
);
