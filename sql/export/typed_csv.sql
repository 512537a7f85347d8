-- typed_csv: a headerless CSV file of PostgreSQL's COPY read with the warehouse's DuckDB types
-- (warehouse/store/export.py, _typed_csv): the dialect both engines write (RFC 4180 quoting), nothing
-- guessed; an empty string stays one (quoted "" in PostgreSQL's CSV), as null stays null. Composed:
-- [path] is the file's quoted path, [types] the columns' types as a DuckDB struct of literals,
-- [columns] each column as it is, or converted from its JSON text (nested_column.sql).
-- Grain: one row per line of the file. Inputs: the file.
-- trec_eval: none (rows are exported as they are stored).
select /* columns */ from read_csv(/* path */, columns = /* types */, header = false, delim = ',', quote = '"', escape = '"', auto_detect = false, allow_quoted_nulls = false)
