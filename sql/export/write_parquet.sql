-- write_parquet: rows written as one Parquet file, on a DuckDB database (the warehouse, or the
-- staging database reading a PostgreSQL warehouse's rows from CSV). Composed: [rows] is a query of
-- this folder, [path] the file's quoted path (irw's own: COPY takes no parameter for it).
-- Grain: one row: how many rows were written. Inputs: the query's.
-- trec_eval: none (rows are exported as they are stored).
copy (/* rows */) to /* path */ (format parquet)
