-- eval_judged: the retrieved judged documents with running relevant and non-relevant counts.
-- Grain: one row per run x query x retrieved judged doc.
-- Inputs: eval_ranked (judged documents only, ranked).
-- trec_eval: rel_so_far and nonrel_so_far as its measures count them down the ranking (m_bpref.c):
-- relevant is grade >= level, judged non-relevant 0 <= grade < level (eval_qrels), each count
-- including the document itself; unjudged and negatively graded documents add to neither.
-- Why: most measures read the rank of each judged document and how many relevant (or judged
-- non-relevant) documents sit at or above it; computing the running counts once here spares each
-- measure a window of its own.
drop table if exists eval_judged;

create temp table eval_judged as
select
    run_id,
    query_id,
    doc_id,
    rank,
    grade,
    is_rel,
    is_nonrel,
    sum(case when is_rel then 1 else 0 end) over (
        partition by run_id, query_id order by rank rows between unbounded preceding and current row
    ) as rel_so_far,
    sum(case when is_nonrel then 1 else 0 end) over (
        partition by run_id, query_id order by rank rows between unbounded preceding and current row
    ) as nonrel_so_far
from eval_ranked;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_judged
