-- run_system: a run's system as stored (null: the run is its own system) and its name.
-- Grain: one row, the run's. Inputs: runs, $run_id.
-- trec_eval: none.
select system, name from runs where run_id = $run_id
