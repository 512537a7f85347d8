-- run_source_path: the file a stored run was read from (resolved when it was stored), for batch
-- naming: a stored run of the same file name and queries read from another folder is another
-- system's run of the collection; read from the same folder, it is an earlier version of the file.
-- Grain: one row, or none. Inputs: runs, $run_id.
-- trec_eval: none (naming only).
select source_path from runs where run_id = $run_id
