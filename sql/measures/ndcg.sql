-- ndcg: nDCG over the whole ranking (trec_eval's m_ndcg), grades as gains unless ndcg.1=3,2=9 maps them.
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_dcg_totals (sql/eval/07_dcg.sql: DCG and IDCG of every run x query x gain measure),
-- eval_params (measure) of $measures.
-- trec_eval: the gain of a grade is the grade itself unless the measure maps it (ndcg.1=3,2=9
-- gives the pairs (1, 3) and (2, 9) of eval_param_gains, read by sql/eval/06_gains.sql); a negative
-- grade looks up level -2 and gets 0 unless mapped, an unjudged document gets 0. The discount of rank r is log2(r + 1). The ideal
-- ranking is every judged document of the query (retrieved or not) whose gain is > 0, by gain
-- descending. -l plays no part.
--   ndcg = DCG / IDCG over the whole ranking and the whole ideal (0 when IDCG = 0).
-- Gains that differ by less than 1 can sort out of order in trec_eval (its qsort comparator
-- truncates the difference to int); that quirk is not reproduced.
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure
    from eval_params
    where measure in (select unnest($measures))
),

final as (
    select
        t.run_id,
        t.query_id,
        t.measure,
        coalesce(t.dcg / nullif(t.idcg, 0.0), 0.0) as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from eval_dcg_totals as t
    inner join params as p
        on p.measure = t.measure
)

select * from final
