-- Schema version 19: on PostgreSQL, run_rows indexed by (run_id, query_id) in place of run_id alone.
-- Grain: no table changes; one index of run_rows replaces another (DuckDB keeps none: nothing runs
--        there).
-- Inputs: run_rows and its index run_rows_by_run (schema 010).
-- Why: the families that read every run row (the tie-aware measures, gdeval, ndeval) join run_rows
-- to the evaluated (run, query) pairs of a batch (sql/eval/04b_run_rows_graded.sql). Indexed by run
-- alone, PostgreSQL merge-joined on run_id and tested query_id on each of a run's rows once per
-- query the run answers: 25M tests for 100 runs of 50 queries, 6 of the 11 s of AP(ties=min) and
-- AP(ties=max) in a batch of the cold leaderboard at 1,000 stored runs. Indexed by both, the join
-- probes each pair's rows directly; lookups by run alone (removing, copying, --compat 10) read the
-- same index's leading column. trec_eval: no number changes.
-- Written to run again (a test re-applies migrations from an earlier version).

-- irw: postgres only (see the header)
create index if not exists run_rows_by_run_query on run_rows (run_id, query_id);

-- irw: postgres only (the index above serves lookups by run alone)
drop index if exists run_rows_by_run;
