-- catalog_columns: the columns of a database's tables as DuckDB's catalog holds them, read by
-- scripts/oneshot_schema.py (which writes sql/oneshot/schema.sql from a migrated warehouse) and
-- tests/test_oneshot.py (which compares a one-shot database with a migrated warehouse).
-- Grain: one row per table x column, in each table's column order (views' columns are not here).
-- Inputs: DuckDB's catalog (duckdb_tables, duckdb_columns) of the current database's schema main.
-- trec_eval: not involved; the types, defaults and nullability are DuckDB's own spelling.
select
    c.table_name,
    c.column_name,
    lower(c.data_type) as data_type,
    c.is_nullable,
    c.column_default
from duckdb_columns() as c
inner join duckdb_tables() as t
    on t.database_name = c.database_name and t.schema_name = c.schema_name and t.table_name = c.table_name
where c.database_name = current_database() and c.schema_name = 'main'
order by c.table_name, c.column_index
