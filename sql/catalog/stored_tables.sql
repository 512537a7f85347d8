-- stored_tables: the warehouse's stored tables and their columns, from the database's own catalog
-- (views, sequences and macros are not stored rows). Read by warehouse/store/export.py (`irw export`),
-- so a table or column a migration adds is exported without a list here to keep up to date.
-- Grain: one row per table x column, columns in their order in the table.
-- Inputs: information_schema of the current database and schema (DuckDB: main; PostgreSQL: the
-- connection's schema).
-- trec_eval: none.
select
    c.table_name,
    c.column_name,
    c.data_type
from information_schema.columns as c
inner join information_schema.tables as t
    on t.table_catalog = c.table_catalog
   and t.table_schema = c.table_schema
   and t.table_name = c.table_name
where t.table_catalog = current_database()
  and t.table_schema = current_schema()
  and t.table_type = 'BASE TABLE'
order by c.table_name, c.ordinal_position
