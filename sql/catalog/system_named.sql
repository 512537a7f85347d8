-- system_named: whether a stored run is of that system (a --baseline that names a system).
-- Grain: one row per such run, or none. Inputs: runs, $system.
-- trec_eval: none.
select 1 from runs where system = $system
