-- drop_staged_run_columns: the column read of the run files (oneshot/stage_runs.sql), once its rows
-- are inserted, or once line mode takes over.
-- Grain: none (DDL). Inputs: stage_runs_columns, if it was made.
-- trec_eval: none.
drop table if exists stage_runs_columns
