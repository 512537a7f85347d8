-- irw_schema: which schema migrations (sql/schema/NNN_*.sql) a warehouse file has applied.
-- Grain: one row per applied migration. Written by warehouse/engines/duckdb.py only.
-- trec_eval: none (migration bookkeeping).
-- An irw that finds a version newer than its newest migration refuses to open the file.
create table if not exists irw_schema (
    version     integer primary key,
    name        varchar not null,
    applied_at  timestamp not null default current_timestamp
);
