-- Schema version 11: whether a run's rows are in the warehouse (runs.rows_stored).
-- Grain: one value per run.
-- Inputs: true for every run ingested from its file (and every run stored before this version);
-- false for a run evaluated on Spark and stored with `irw eval --engine spark --into`, which
-- brings the run's description, its per-query document counts (run_queries) and its per-query
-- scores, not its rows (hundreds of millions of lines are the reason to evaluate on a cluster).
-- Why: a measure computed from a run without rows would silently be zero; warehouse/evaluation/evaluator.py
-- refuses to compute one for such a run, and the run page says why it cannot show relevant ranks.
-- `irw ingest run` of the same bytes later stores the rows and sets it true, keeping the scores.
-- trec_eval: nothing of its output depends on this column.
alter table runs add column if not exists rows_stored boolean default true;
update runs set rows_stored = true where rows_stored is null;
