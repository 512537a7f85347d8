-- Schema version 2: materialized evaluations (settings, per-query scores, measure catalogue).
-- Grain: evaluations one row per (qrels set, settings); evaluated one row per evaluation x run x
--        measure already computed; scores one row per evaluation x run x query x measure;
--        measures one row per measure ever computed (its names, aggregate and description).
-- Inputs: written by warehouse/evaluation/evaluator.py only, one transaction per evaluate call.
-- trec_eval: a score row holds one per-query value as trec_eval computes it (-q output); the
-- summary (the "all" line) is derived in run_summary.sql, never stored, so it cannot drift.
-- numerator/denominator hold the counts behind ratio measures (P@k = rel_ret@k / k, ...), so a
-- micro average pools counts: sum(numerator) / sum(denominator).

create sequence evaluation_id_seq start 1;

create table evaluations (
    evaluation_id   integer primary key default nextval('evaluation_id_seq'),
    qrels_set_id    integer not null,
    settings_key    varchar not null,
    relevance_level integer not null,
    depth           bigint,
    judged_only     boolean not null,
    complete        boolean not null,
    compat          integer not null,
    norel_queries   varchar not null,
    created_at      timestamp not null default current_timestamp,
    unique (qrels_set_id, settings_key)
);

create table measures (
    measure         varchar primary key,
    trec_name       varchar not null,
    family          varchar not null,
    aggregate       varchar not null,
    description     varchar not null
);

create table evaluated (
    evaluation_id   integer not null,
    run_id          integer not null,
    measure         varchar not null,
    query_count     integer not null,
    computed_at     timestamp not null default current_timestamp,
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
