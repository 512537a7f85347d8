-- measure: prec
-- parameters: k=10
-- aggregate: mean
-- description: Precision at k written in SQL: relevant documents in the top k, divided by k (trec_eval's P_k).
-- Grain: one row per run x query the evaluation reads (ranked_judged holds every judged document
-- of each query, retrieved or not, so every query has rows).
-- trec_eval: P_k divides by k even when fewer than k documents were retrieved; an unjudged
-- document is not relevant.
select
    run_id,
    query_id,
    cast(count(*) filter (where is_rel and rank <= $k) as double) / $k as value
from ranked_judged
group by run_id, query_id
