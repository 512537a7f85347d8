-- measure: a measure's description as it travels to another warehouse (warehouse/store/transfer.py,
-- _copy_scores; insert_measure.sql).
-- Grain: one row, or none. Inputs: measures, $measure.
-- trec_eval: none (rows travel as they are stored; doubles as their shortest round-trip text).
select measure, trec_name, family, aggregate, description from measures where measure = $measure
