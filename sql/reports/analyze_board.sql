-- analyze_board: irw: postgres only. Statistics of the temporary tables a served leaderboard page
-- just filled (report_wanted, report_runs, report_values), which PostgreSQL's autovacuum never
-- gathers for temporary tables: without them it planned the 10,000-run page's joins as if they held
-- a few hundred rows (nested loops over 60,000 summaries). DuckDB plans without them.
-- Grain: none (no rows). Inputs: report_wanted, report_runs, report_values (temporary).
-- trec_eval: none.
analyze report_wanted;

-- irw: postgres only
analyze report_runs;

-- irw: postgres only
analyze report_values;
