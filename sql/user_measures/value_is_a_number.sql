-- value is a number: what `irw measures add` runs, beside statement.sql, to check that a measure's
-- value column is a number (warehouse/evaluation/user_measures.py, trial): the evaluation's tables
-- up to ranked_judged as CTEs ([ranked_judged], as in statement.sql), then the measure's own
-- SELECT ([measure]) with its value added to a decimal. Either engine refuses that, before reading
-- a row, for text, a date, a time, an interval or a boolean (statement.sql's cast to double would
-- take the text '0.5', and fail only on the first row of other text, at `irw eval`).
-- Grain: one row per row of the measure's SELECT (none: it runs on no run). Inputs: the
-- evaluation's $irw_* parameters and the measure's own.
-- trec_eval: none. Only the lines after this header are composed.
/* ranked_judged */

select u.value + 0.0 as value
from (
/* measure */
) as u
