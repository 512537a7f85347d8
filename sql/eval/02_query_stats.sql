-- eval_query_stats: per-query facts of the qrels that every measure needs.
-- Grain: one row per query of the qrels set (a query with no relevant document is still here).
-- Inputs: eval_qrels.
-- trec_eval: num_rel counts grade >= level; num_nonrel counts judged non-relevant documents
-- (0 <= grade < level), the N of bpref and infAP; num_judged the judged documents (grade >= 0: a
-- negative grade is in the qrels but unjudged), as the view ranked_judged counts them.
drop table if exists eval_query_stats;

create temp table eval_query_stats as
select
    query_id,
    cast(count(*) filter (where is_rel) as bigint) as num_rel,
    cast(count(*) filter (where is_nonrel) as bigint) as num_nonrel,
    cast(count(*) filter (where grade >= 0) as bigint) as num_judged
from eval_qrels
group by query_id;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_query_stats
