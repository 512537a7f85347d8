-- catalog_keys: the keys and checks of a database's tables as DuckDB's catalog holds them, read by
-- scripts/oneshot_schema.py (which writes sql/oneshot/schema.sql from a migrated warehouse) and
-- tests/test_oneshot.py (which compares a one-shot database with a migrated warehouse).
-- Grain: one row per table x key (primary key, unique, foreign key) or check constraint; the not
-- null constraints are catalog_columns.sql's is_nullable.
-- Inputs: DuckDB's catalog (duckdb_constraints) of the current database.
-- trec_eval: not involved.
select
    table_name,
    constraint_type,
    constraint_column_names,
    constraint_text
from duckdb_constraints()
where database_name = current_database() and constraint_type in ('PRIMARY KEY', 'UNIQUE', 'FOREIGN KEY', 'CHECK')
order by all
