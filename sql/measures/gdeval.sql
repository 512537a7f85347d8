-- gdeval family: ERR@k and nDCG(dcg=exp-log2)@k, the TREC Web track's official measures as
-- gdeval.pl computes them (version 1.2a, the copy ir_measures ships and runs for these names).
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_run_rows_graded (sql/eval/04b: every run row of the query set with its grade),
-- eval_qrels (the ideal's grades), eval_run_queries (the query set), $depth (-M), $judged_only
-- (-J), eval_params (measure, family, k; family gdeval_err or gdeval_ndcg) of $measures.
-- trec_eval: none (gdeval.pl's measures, by its conventions below); -M then -J, trec_eval's order.
-- gdeval.pl's conventions, kept here:
--   order: score as a double descending, then docid descending (Perl's `lt`, byte order), whatever
--     --compat says (trec_eval 9.0.8's float32 ties do not apply); the rank column is ignored.
--   gain of a grade g: 2^g - 1 for g > 0; 0 for g <= 0 and for unjudged documents.
--   nDCG@k = DCG@k / IDCG@k, discount ln(rank + 1) as gdeval computes it (the natural log in both,
--     so the ratio is the log2 one); the ideal ranking is the query's documents graded > 0, by grade
--     descending, cut at k.
--   ERR@k = sum over ranks r <= k of R(r) / r * prod over ranks above r of (1 - R), with
--     R = (2^g - 1) / 2^4 (gdeval's MAX_JUDGMENT = 4). gdeval refuses a qrels file holding a grade
--     above 4; irw refuses ERR on such a qrels set before running this file
--     (warehouse/evaluation/evaluator.py) and computes nDCG(dcg=exp-log2) with any grade.
--   queries: gdeval prints no line for a query without a document graded > 0, nor for a qrels
--     query the run lacks; ir_measures then reports 0 for every query of the qrels it did not print
--     (its Evaluator's default) and averages over all of them. irw keeps its own query set (the
--     queries of both run and qrels; every qrels query under -c, a missing one scoring 0) and scores
--     a query without a document graded > 0 as 0, as ir_measures does (--norel exclude leaves them
--     out). So under -c the values and the mean are ir_measures' exactly. -l plays no part. -M keeps
--     the first N documents of this order; -J then drops unjudged and negatively graded ones and
--     ranks the rest from 1.
-- Sums run in rank order (the same bits every time). gdeval prints 5 decimals;
-- tests/test_gdeval.py compares per query within 5e-6.
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure, family, k
    from eval_params
    where measure in (select unnest($measures))
),

in_scope as (
    select run_id, query_id, doc_id, score, grade
    from eval_run_rows_graded
),

ranked as (
    select
        run_id,
        query_id,
        grade,
        row_number() over (partition by run_id, query_id order by score desc, doc_id desc) as full_rank
    from in_scope
),

kept as (
    -- -M first, then -J (trec_eval's order of the two)
    select
        run_id,
        query_id,
        grade,
        full_rank
    from ranked
    where full_rank <= $depth
      and (not $judged_only or grade >= 0)
),

reranked as (
    select
        run_id,
        query_id,
        grade,
        case
            when $judged_only then row_number() over (partition by run_id, query_id order by full_rank)
            else full_rank
        end as rank
    from kept
),

relevant_ranks as (
    -- only documents graded > 0 add to DCG and ERR; the others only take ranks
    select
        run_id,
        query_id,
        rank,
        power(2.0, cast(grade as double)) - 1.0 as gain,
        (power(2.0, cast(grade as double)) - 1.0) / 16.0 as stop
    from reranked
    where grade > 0
),

err_terms as (
    -- ERR's chance of reaching a rank: the product of (1 - R) over the relevant ranks above it,
    -- as exp(sum(ln(1 - R))); a grade above 4 (R >= 1, only nDCG reads it) takes no logarithm, and
    -- a chance below e^-700 is held at e^-700 (PostgreSQL's exp() refuses to underflow)
    select
        run_id,
        query_id,
        rank,
        gain,
        stop * exp(greatest(coalesce(sum(case when stop < 1 then ln(1.0 - stop) end) over (
            partition by run_id, query_id order by rank rows between unbounded preceding and 1 preceding
        ), 0.0), -700.0)) / rank as err_term
    from relevant_ranks
),

ideal as (
    select
        query_id,
        power(2.0, cast(grade as double)) - 1.0 as gain,
        row_number() over (partition by query_id order by grade desc) as position
    from eval_qrels
    where grade > 0
),

scored_queries as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        p.family,
        p.k
    from eval_run_queries as q
    cross join params as p
),

ideal_dcg as (
    select
        s.run_id,
        s.query_id,
        s.measure,
        sum(i.gain / ln(cast(i.position + 1 as double)) order by i.position) as idcg
    from scored_queries as s
    inner join ideal as i
        on i.query_id = s.query_id
       and i.position <= s.k
    where s.family = 'gdeval_ndcg'
    group by s.run_id, s.query_id, s.measure
),

run_sums as (
    select
        s.run_id,
        s.query_id,
        s.measure,
        sum(t.gain / ln(cast(t.rank + 1 as double)) order by t.rank) as dcg,
        sum(t.err_term order by t.rank) as err
    from scored_queries as s
    inner join err_terms as t
        on t.run_id = s.run_id
       and t.query_id = s.query_id
       and t.rank <= s.k
    group by s.run_id, s.query_id, s.measure
),

final as (
    select
        s.run_id,
        s.query_id,
        s.measure,
        case s.family
            when 'gdeval_err' then coalesce(r.err, 0.0)
            else coalesce(r.dcg / nullif(i.idcg, 0.0), 0.0)
        end as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from scored_queries as s
    left join run_sums as r
        on r.run_id = s.run_id
       and r.query_id = s.query_id
       and r.measure = s.measure
    left join ideal_dcg as i
        on i.run_id = s.run_id
       and i.query_id = s.query_id
       and i.measure = s.measure
)

select * from final
