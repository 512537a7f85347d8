-- statistics after qrels: the planner's statistics of the tables a qrels ingest writes, taken when
-- it is stored (a server warehouse; DuckDB keeps them as it writes).
-- Grain: none (no rows). Inputs: qrels_sets, qrels, judged_run_rows (written by the ingest).
-- trec_eval: none. Why: until autovacuum samples them (up to a minute later, or never for a small
-- change to a large table), PostgreSQL plans a query over a new set's rows with no knowledge of
-- them, guessing its 9,260 DL19 judgments to be 24 rows, and nested-loops the view
-- ranked_judged over them: a user measure of six runs took 254 s instead of 0.37 s
-- (tests/test_user_measures.py). The evaluation's temp tables are analyzed the same way
-- (sql/eval/01_qrels.sql).

-- irw: postgres only
analyze qrels_sets;

-- irw: postgres only
analyze qrels;

-- irw: postgres only
analyze judged_run_rows
