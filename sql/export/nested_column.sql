-- nested_column: a map or list column (PostgreSQL's JSONB) read from CSV as its JSON text and
-- converted to its DuckDB type (typed_csv.sql). Composed: [column] a quoted column name of irw's
-- schema, [type] its DuckDB type from this irw's catalog.
-- Grain: an expression (one value a row). Inputs: the column.
-- trec_eval: none (rows are exported as they are stored).
cast(cast(/* column */ as json) as /* type */) as /* column */
