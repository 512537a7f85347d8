-- run_row_counts: each stored run's line count, by which `irw trec-eval` groups runs evaluated
-- together (about evaluate.ROWS_PER_BATCH lines a group).
-- Grain: one row per stored run. Inputs: runs.
-- trec_eval: none (how the work is split, not what is printed).
select name, row_count from runs
