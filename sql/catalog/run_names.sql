-- run_names: the stored runs' names in `irw runs` order (Warehouse.run_names, and the stored runs
-- an error lists).
-- Grain: one row per run, oldest ingest first, then by name. Inputs: runs.
-- trec_eval: none.
select name from runs order by ingested_at, name
