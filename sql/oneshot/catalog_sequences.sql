-- catalog_sequences: a database's sequences as DuckDB's catalog holds them, read by
-- scripts/oneshot_schema.py (which writes sql/oneshot/schema.sql from a migrated warehouse) and
-- tests/test_oneshot.py (which compares a one-shot database with a migrated warehouse).
-- Grain: one row per sequence.
-- Inputs: DuckDB's catalog (duckdb_sequences) of the current database.
-- trec_eval: not involved.
select
    sequence_name,
    start_value,
    increment_by,
    min_value,
    max_value,
    cycle
from duckdb_sequences()
where database_name = current_database()
order by sequence_name
