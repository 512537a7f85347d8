-- measure: rbp_binary
-- parameters: p=0.8
-- aggregate: mean
-- description: Rank-biased precision (Moffat and Zobel 2008) with binary relevance: (1 - p) times the sum of p^(rank - 1) over the relevant retrieved documents.
-- Grain: one row per run x query of the evaluation.
-- trec_eval: not one of its measures (trec_eval 10.0's rbp uses graded gains, p = 0.9); relevant
-- means grade >= the evaluation's level, and an unjudged document counts as not relevant (the
-- residual is not reported).
select
    run_id,
    query_id,
    (1 - $p) * coalesce(sum(case when is_rel and retrieved then power($p, rank - 1) else 0.0 end), 0.0) as value
from ranked_judged
group by run_id, query_id
