-- copied_score_count: how many per-query scores the target holds of the measures just copied.
-- Grain: one row. Inputs: scores, $evaluation_id, $run_id, $measures (a list).
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select count(*) from scores
where evaluation_id = $evaluation_id and run_id = $run_id and measure in (select unnest($measures))
