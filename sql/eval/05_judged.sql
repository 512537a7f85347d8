-- eval_judged: the retrieved documents that the qrels judge, with running relevant counts.
-- Grain: one row per run x query x retrieved judged doc (usually a small share of eval_ranked).
-- Inputs: eval_ranked.
-- Why: every measure except num_ret and relstring reads only judged documents and their ranks;
-- computing the cumulative counts once here spares each measure a window over all rows.
create or replace temp table eval_judged as
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
from eval_ranked
where grade is not null
