-- evaluated_measures: the measures the target already stores for a run in an evaluation (those
-- are not copied).
-- Grain: one row per measure. Inputs: evaluated, $evaluation_id, $run_id.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select measure from evaluated where evaluation_id = $evaluation_id and run_id = $run_id
