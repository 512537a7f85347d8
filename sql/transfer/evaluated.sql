-- evaluated: the measures stored for a run in an evaluation, as they travel (insert_evaluated.sql).
-- Grain: one row per measure. Inputs: evaluated, $evaluation_id, $run_id.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select measure, query_count, computed_at, definition_hash from evaluated
where evaluation_id = $evaluation_id and run_id = $run_id
