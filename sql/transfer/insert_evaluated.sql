-- insert_evaluated: a measure stored for a run in an evaluation, as evaluated.sql read it, with
-- the target's ids.
-- Grain: one row inserted. Inputs: $evaluation_id, $run_id and a $name per column of evaluated.sql.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
insert into evaluated (evaluation_id, run_id, measure, query_count, computed_at, definition_hash)
values ($evaluation_id, $run_id, $measure, $query_count, $computed_at, $definition_hash)
