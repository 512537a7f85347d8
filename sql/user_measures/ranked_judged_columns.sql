-- ranked_judged's columns: what `irw measures add` says beside an engine's "no such column" error
-- of a measure's SELECT (warehouse/evaluation/user_measures.py, trial), read from the view as the
-- measure sees it: the evaluation's tables up to ranked_judged as CTEs ([ranked_judged], as in
-- statement.sql), then its columns and no row.
-- Grain: none (LIMIT 0: the columns only). Inputs: the evaluation's $irw_* parameters.
-- trec_eval: none. Only the lines after this header are composed.
/* ranked_judged */

select * from ranked_judged limit 0
/* measure */
