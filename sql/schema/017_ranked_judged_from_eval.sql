-- Schema version 17: the view ranked_judged made from the evaluation's own SQL, not a copy of it.
-- Grain: as sql/eval/ranked_judged_view.sql (one row per run x qrels set x relevance level x query
--        the run answers and the set judges x document the set judges for that query).
-- Inputs: the view ranked_judged of version 13 (sql/schema/013_ranked_judged_and_user_measures.sql).
-- trec_eval 9.0.8: the ranking, tie rule, relevance, R and grade counts are those of
-- sql/eval/01_qrels.sql .. 05_judged.sql and 08_ranked_judged.sql, the SQL every evaluation runs:
-- irw (warehouse/engines/duckdb.py, migration_sql) puts the view sql/eval/ranked_judged_view.sql composes
-- from them in place of the line `-- irw: ranked_judged view` below, and makes it again at a
-- writable open whenever those files changed (the view that is stored is then not the one this
-- irw makes). The statement of version 13 is dropped first; run as it is, the file only drops it.
drop view if exists ranked_judged;

-- irw: ranked_judged view
