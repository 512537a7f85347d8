-- statement: how a measure added with `irw measures add` runs (warehouse/evaluation/user_measures.py,
-- statement): the evaluation's tables up to ranked_judged as CTEs ([ranked_judged]: the steps of
-- sql/eval/ as trec_eval 9.0.8 ranks, without -J, their $names renamed $irw_*), then the measure's
-- own SELECT ([measure]) read as (run_id, query_id, value) in irw's types.
-- Grain: one row per run and query the measure's SELECT gives. Inputs: the evaluation's $irw_*
-- parameters and the measure's own.
-- trec_eval: the ranking is trec_eval's (ties by document id descending, as 03_ranked_*.sql);
-- the measure itself is the user's. Only the lines after this header are composed: a measure's
-- error lines are counted from the composed text.
/* ranked_judged */

select
    cast(u.run_id as integer) as run_id,
    cast(u.query_id as varchar) as query_id,
    cast(u.value as double) as value
from (
/* measure */
) as u
