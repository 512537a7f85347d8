-- catalogue: the warehouse's tables and views, which an `irw sql` error about an unknown name lists
-- (warehouse/store/adhoc.py, _query_failure).
-- Grain: one row per table or view of the main schema, by name. Inputs: DuckDB's information_schema.
-- trec_eval: none.
select table_name, table_type from information_schema.tables
where table_catalog = current_database() and table_schema = 'main' order by table_name
