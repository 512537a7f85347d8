-- no_rows: no row of a table, with its columns as a DuckDB warehouse types them: what an empty table
-- of a PostgreSQL warehouse is written from (its COPY gives an empty CSV file, which some DuckDB
-- versions cannot read), so its Parquet file is there, of 0 rows, with the table's columns and types
-- (warehouse/store/export.py, _no_rows). Composed: [columns] each column as
-- cast(null as <its DuckDB type from this irw's catalog>) as <its quoted name>.
-- Grain: no row. Inputs: none.
-- trec_eval: none (rows are exported as they are stored).
select /* columns */ where false
