-- One-shot schema: the tables an in-memory database made to evaluate files once (warehouse/evaluation/oneshot.py:
-- `irw trec-eval`, warehouse.evaluate_files) writes and reads, with the columns of a migrated
-- warehouse (sql/schema/) and without its bookkeeping.
-- Grain: as in sql/schema/ (qrels one row per set x query x doc, run_rows one row per run x query x
-- doc, scores one row per evaluation x run x query x measure ...).
-- Inputs: none; written by sql/ingest/ and warehouse/evaluation/evaluator.py exactly as a warehouse is.
-- Why not made by running the migrations: a database that lives for one call has no schema
-- history to keep (irw_schema, migrations, score views), running the migrations takes about as
-- long as the DL19 evaluation it would serve, and the keys that guard a stored warehouse guard nothing here:
-- the ingest SQL refuses duplicate judgments and run rows itself (qrels_problems.sql,
-- run_problems.sql), while qrels' primary-key index cost ~8 ms of a 0.2 s DL19 evaluation. The keys
-- left (measures, evaluated) are the ones warehouse/evaluation/evaluator.py's upserts need (evaluated stays
-- empty here: a one-shot database keeps no record of what it computed, OneShotDatabase.keeps_scores).
-- Held equal instead: tests/test_oneshot.py checks that every table here has a migrated
-- warehouse's columns in order with their types, defaults and nullability (but where a dropped
-- key made a column not null), only the warehouse's keys, and its sequences, so the two cannot
-- drift apart. A new migration that changes one of these tables changes this file too.

create sequence qrels_set_id_seq start 1;

create table qrels_sets (
    qrels_set_id    integer default nextval('qrels_set_id_seq'),
    name            varchar not null,
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
    grade           integer not null
);

create table qrels_subtopics (
    qrels_set_id    integer not null,
    query_id        varchar not null,
    subtopic        varchar not null,
    doc_id          varchar not null,
    grade           integer not null
);

create table preference_judgments (
    qrels_set_id    integer not null,
    query_id        varchar not null,
    jg              varchar not null,
    jsg             varchar not null,
    doc_id          varchar not null,
    rel_level       double not null
);

create table preference_pairs (
    qrels_set_id    integer not null,
    query_id        varchar not null,
    jg              varchar not null,
    doc_id          varchar not null,
    other_doc_id    varchar not null
);

create sequence run_id_seq start 1;

create table runs (
    run_id          integer default nextval('run_id_seq'),
    name            varchar not null,
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
    query_count     integer not null,
    date_source     varchar,
    rows_stored     boolean default true
);

create table run_rows (
    run_id          integer not null,
    query_id        varchar not null,
    doc_id          varchar not null,
    rank_given      bigint,
    score           double not null,
    trec_rank       bigint not null
);

create table run_queries (
    run_id          integer not null,
    query_id        varchar not null,
    num_ret         bigint not null
);

create table judged_run_rows (
    qrels_set_id    integer not null,
    run_id          integer not null,
    query_id        varchar not null,
    doc_id          varchar not null,
    trec_rank       bigint not null
);

create sequence evaluation_id_seq start 1;

create table evaluations (
    evaluation_id   integer default nextval('evaluation_id_seq'),
    qrels_set_id    integer not null,
    settings_key    varchar not null,
    relevance_level integer not null,
    depth           bigint,
    judged_only     boolean not null,
    complete        boolean not null,
    compat          integer not null,
    norel_queries   varchar not null,
    created_at      timestamp not null default current_timestamp
);

create table measures (
    measure         varchar primary key,
    trec_name       varchar not null,
    family          varchar not null,
    aggregate       varchar not null,
    description     varchar not null,
    definition_hash varchar
);

create table evaluated (
    evaluation_id   integer not null,
    run_id          integer not null,
    measure         varchar not null,
    query_count     integer not null,
    computed_at     timestamp not null default current_timestamp,
    definition_hash varchar,
    primary key (evaluation_id, run_id, measure)
);

create table scores (
    evaluation_id   integer not null,
    qrels_set_id    integer not null,
    run_id          integer not null,
    query_id        varchar not null,
    measure         varchar not null,
    value           double not null,
    numerator       double,
    denominator     double
);
