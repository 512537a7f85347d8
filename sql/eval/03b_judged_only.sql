-- eval_ranked under -J: the judged documents re-ranked 1.. in their original order.
-- Grain: one row per run x query x retrieved judged doc. Inputs: eval_ranked (after -M).
-- trec_eval -J drops every document the qrels do not judge, negatively graded ones included
-- (trec_eval issue #29), after -M truncation, and ranks the rest from 1. eval_ranked already holds
-- judged documents only; this drops the negative grades and closes the gaps. The table -M left is
-- renamed and read from, as a table cannot be dropped and read in one statement.
drop table if exists eval_ranked_within_depth;

alter table eval_ranked rename to eval_ranked_within_depth;

create temp table eval_ranked as
select
    run_id,
    query_id,
    doc_id,
    grade,
    is_rel,
    is_nonrel,
    row_number() over (partition by run_id, query_id order by rank) as rank
from eval_ranked_within_depth
where grade >= 0;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_ranked;

drop table eval_ranked_within_depth
