-- drop_stage: every view and table staging a file, dropped before another file is staged
-- (warehouse/ingestion/files.py, _drop_stage).
-- Grain: none (statements). Inputs: the stage's views (stage_run, stage_qrels) and tables.
-- trec_eval: none (reading the staged file, before anything is stored).
drop view if exists stage_run;
drop view if exists stage_qrels;
drop table if exists stage_fields;
drop table if exists stage_run_columns;
drop table if exists stage_qrels_columns;
drop table if exists stage_pref_closure;
drop table if exists stage_prefs;
