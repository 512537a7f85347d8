-- measure_named: whether the target describes a measure already.
-- Grain: one row, or none. Inputs: measures, $measure.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select 1 from measures where measure = $measure
