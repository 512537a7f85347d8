-- user measure score count: how many per-query scores a user measure has stored, under every
-- parameter value (NAME and NAME(...), as remove_user_measure.sql deletes them), said by
-- `irw measures rm` and `irw measures add --replace` when they delete them.
-- Grain: one row (the count).
-- Inputs: $name; $prefix, NAME and an opening parenthesis (compared as text, not a LIKE pattern).
-- trec_eval: none.
select count(*) as stored_scores
from scores
where measure = $name or substr(measure, 1, length($prefix)) = $prefix
