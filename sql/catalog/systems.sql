-- systems: the stored runs' systems (a run without one is its own system), for --system.
-- Grain: one row per system, no order. Inputs: runs.
-- trec_eval: none.
select distinct coalesce(system, name) from runs
