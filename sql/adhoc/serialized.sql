-- serialized: a statement of `irw sql` as DuckDB's parser reads it (its tree as JSON), in which a
-- construct that writes (PIVOT inside a SELECT ...) shows as an error (warehouse/store/adhoc.py, refusal).
-- Grain: one row. Inputs: $query (the user's statement, bound as a value, never run).
-- trec_eval: none.
select json_serialize_sql($query)
