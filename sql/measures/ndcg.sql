-- ndcg: nDCG over the whole ranking (trec_eval's m_ndcg), grades as gains unless ndcg.1=3,2=9 maps them.
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_dcg_totals (sql/eval/07_dcg.sql: DCG and IDCG of every run x query x gain measure),
-- eval_params (measure) of $measures.
-- trec_eval: gains and the ideal ranking as sql/eval/06_gains.sql builds them: the gain of a grade
-- is the grade itself unless the measure maps it (ndcg.1=3,2=9), a negative grade looks up -2 and an
-- unjudged document gets 0; the ideal ranking walks the query's table of gains in the order
-- trec_eval's qsort leaves it (gains less than 1 apart compare equal there, so
-- ndcg.1=3.5,2=9.0,4=7.0 puts grade 3 above grade 1 whenever both are judged). The discount of rank
-- r is log2(r + 1). -l plays no part.
--   ndcg = DCG / IDCG over the whole ranking and the whole ideal (0 when IDCG = 0).
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
