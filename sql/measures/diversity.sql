-- diversity family: alpha_nDCG@k, ERR_IA@k, NRBP, nNRBP, P_IA@k, StRecall@k over subtopic
-- judgments, as ndeval 4.5 computes them through pyndeval (ir_measures' diversity provider).
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: qrels_subtopics (schema 008) of $qrels_set_id, eval_run_rows_graded
-- (sql/eval/04b: every run row of the query set with its highest grade, for -J), eval_run_queries
-- (the query set), $level (relevant means grade >= level, per subtopic), $depth (-M),
-- $judged_only (-J), eval_params (measure, family, k, alpha, beta; families alpha_ndcg, err_ia,
-- nrbp, nnrbp, p_ia, strec) of $measures.
-- trec_eval: none (it has no diversity measure); what of ndeval this reproduces follows.
-- ndeval, as pyndeval runs it:
--   order: score as a double descending, then docid ASCENDING (pyndeval sorts (-score, docid)
--     before handing ranks to ndeval; ndeval alone would use the rank column, or with -traditional
--     docid descending). -M keeps the first N of this order; -J then keeps the documents the qrels
--     judge with a grade >= 0 and ranks them from 1.
--   judgments are binary per subtopic: grade >= level. m = the query's subtopics with at least one
--     relevant document (a subtopic with none is ignored). Every measure is 0 when m = 0; nNRBP is
--     then 0 / 0 in ndeval (NaN), and 0 here.
--   G(r) = sum over the subtopics the document at rank r is relevant to of (1 - alpha)^c, c = the
--     documents above r relevant to that subtopic.
--   alpha_nDCG@k = sum_{r<=k} G(r) / log2(r + 1) over the same for ndeval's greedy ideal ranking:
--     at each rank the judged document with the largest G given those placed before it, a tie going
--     to the larger docid (byte order). Built by a recursive CTE whose rows at step t are the
--     (document, subtopic) pairs of the documents not placed yet, each with how many placed
--     documents cover the subtopic.
--   ERR_IA@k = sum_{r<=k} G(r) / r over sum_{r<=k} m (1 - alpha)^(r-1) / r, alpha = 0.5 (ir_measures
--     passes ndeval's default); ndeval's normalising loop starts at rank 2, so ERR_IA@1 is G(1),
--     not divided by m: kept.
--   NRBP = (1 - (1 - alpha) beta) / m * sum over every rank r of G(r) beta^(r-1) (no cutoff);
--     nNRBP = NRBP over the NRBP of the greedy ideal ranking.
--   P_IA@k = (subtopic, document) hits in the top k over k m (k even when fewer were retrieved);
--   StRecall@k = subtopics covered in the top k over m.
-- ndeval caps k at 20; here any k works. Queries: irw's query set (queries of both run and qrels,
-- every qrels query under -c, scoring 0 when the run lacks it), as pyndeval scores the queries of
-- both. Sums run in rank order, so a value is the same bits every time it is computed. Values
-- equal pyndeval's within 1e-9 (tests/test_diversity.py).
with recursive params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure, family, k, alpha, beta
    from eval_params
    where measure in (select unnest($measures))
),

subtopic_judgments as (
    select
        query_id,
        subtopic,
        doc_id,
        grade >= $level as is_rel
    from qrels_subtopics
    where qrels_set_id = $qrels_set_id
),

relevant as (
    select query_id, subtopic, doc_id
    from subtopic_judgments
    where is_rel
),

subtopic_counts as (
    -- m: the subtopics ndeval counts (those with a relevant document)
    select
        query_id,
        count(distinct subtopic) as m
    from relevant
    group by query_id
),

in_scope as (
    select run_id, query_id, doc_id, score, grade
    from eval_run_rows_graded
),

ranked as (
    select
        run_id,
        query_id,
        doc_id,
        grade,
        row_number() over (partition by run_id, query_id order by score desc, doc_id asc) as full_rank
    from in_scope
),

kept as (
    select *
    from ranked
    where full_rank <= $depth
      and (not $judged_only or grade >= 0)
),

reranked as (
    select
        run_id,
        query_id,
        doc_id,
        case
            when $judged_only then row_number() over (partition by run_id, query_id order by full_rank)
            else full_rank
        end as rank
    from kept
),

hits as (
    -- one row per (retrieved document, subtopic it is relevant to), with c: the documents above it
    -- relevant to the same subtopic
    select
        r.run_id,
        r.query_id,
        r.rank,
        j.subtopic,
        row_number() over (partition by r.run_id, r.query_id, j.subtopic order by r.rank) - 1 as covered_before
    from reranked as r
    inner join relevant as j
        on j.query_id = r.query_id
       and j.doc_id = r.doc_id
),

alphas as (
    select distinct alpha from params where family in ('alpha_ndcg', 'nnrbp')
),

greedy(query_id, alpha, step, doc_id, subtopic, covered) as (
    -- ndeval's greedy ideal, one step per rank: at step t every relevant document not placed yet,
    -- per subtopic it is relevant to, with the placed documents covering that subtopic; the
    -- document of largest gain sum((1 - alpha)^covered) (a tie to the larger docid) is placed at
    -- rank t and leaves, its subtopics counting once more for the rest. Documents relevant to
    -- nothing would only follow with gain 0.
    select
        r.query_id,
        a.alpha,
        1,
        r.doc_id,
        r.subtopic,
        0
    from relevant as r
    cross join alphas as a
    union all
    select
        query_id,
        alpha,
        step + 1,
        doc_id,
        subtopic,
        covered + placed_covers
    from (
        select
            query_id,
            alpha,
            step,
            doc_id,
            subtopic,
            covered,
            is_placed,
            max(case when is_placed then 1 else 0 end) over (
                partition by query_id, alpha, subtopic
            ) as placed_covers
        from (
            select
                query_id,
                alpha,
                step,
                doc_id,
                subtopic,
                covered,
                dense_rank() over (partition by query_id, alpha order by gain desc, doc_id desc) = 1 as is_placed
            from (
                select
                    query_id,
                    alpha,
                    step,
                    doc_id,
                    subtopic,
                    covered,
                    sum(power(1.0 - alpha, covered)) over (
                        partition by query_id, alpha, doc_id order by subtopic
                        rows between unbounded preceding and unbounded following
                    ) as gain
                from greedy
            ) as with_gains
        ) as with_placed
    ) as next_step
    where not is_placed
),

greedy_gains as (
    -- each document's gain at each step, summed as in the recursion
    select
        query_id,
        alpha,
        step,
        sum(power(1.0 - alpha, covered)) over (
            partition by query_id, alpha, step, doc_id order by subtopic
            rows between unbounded preceding and unbounded following
        ) as gain
    from greedy
),

ideal as (
    -- the gain of the document placed at each rank: the largest of its step
    select
        query_id,
        alpha,
        step as rank,
        max(gain) as gain
    from greedy_gains
    group by query_id, alpha, step
),

measures as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        p.family,
        p.k,
        case when p.family = 'err_ia' then 0.5 else p.alpha end as alpha,
        p.beta,
        coalesce(s.m, 0) as m
    from eval_run_queries as q
    cross join params as p
    left join subtopic_counts as s
        on s.query_id = q.query_id
),

gains as (
    -- G(r) of the run, per measure (its alpha), at each rank with a relevant document
    select
        m.run_id,
        m.query_id,
        m.measure,
        h.rank,
        sum(power(1.0 - m.alpha, h.covered_before) order by h.subtopic) as gain,
        count(*) as subtopic_hits
    from measures as m
    inner join hits as h
        on h.run_id = m.run_id
       and h.query_id = m.query_id
    group by m.run_id, m.query_id, m.measure, h.rank
),

run_sums as (
    select
        m.run_id,
        m.query_id,
        m.measure,
        sum(case when g.rank <= m.k then g.gain / (ln(cast(g.rank + 1 as double)) / ln(cast(2 as double))) else 0.0 end order by g.rank) as dcg,
        sum(case when g.rank <= m.k then g.gain / g.rank else 0.0 end order by g.rank) as err,
        sum(g.gain * case
            -- beta^(r-1) below e^-700 adds nothing a double holds (PostgreSQL's power() refuses to underflow)
            when m.beta <= 0 then power(m.beta, g.rank - 1)
            when (g.rank - 1) * ln(m.beta) < -700 then 0.0
            else power(m.beta, g.rank - 1)
        end order by g.rank) as rbp,
        sum(case when g.rank <= m.k then g.subtopic_hits else 0 end) as hits_at_k
    from measures as m
    inner join gains as g
        on g.run_id = m.run_id
       and g.query_id = m.query_id
       and g.measure = m.measure
    group by m.run_id, m.query_id, m.measure
),

covered_at_k as (
    select
        m.run_id,
        m.query_id,
        m.measure,
        count(distinct h.subtopic) as covered
    from measures as m
    inner join hits as h
        on h.run_id = m.run_id
       and h.query_id = m.query_id
       and h.rank <= m.k
    where m.family = 'strec'
    group by m.run_id, m.query_id, m.measure
),

ideal_sums as (
    select
        m.run_id,
        m.query_id,
        m.measure,
        sum(case when i.rank <= m.k then i.gain / (ln(cast(i.rank + 1 as double)) / ln(cast(2 as double))) else 0.0 end order by i.rank) as dcg,
        sum(i.gain * case
            when m.beta <= 0 then power(m.beta, i.rank - 1)
            when (i.rank - 1) * ln(m.beta) < -700 then 0.0
            else power(m.beta, i.rank - 1)
        end order by i.rank) as rbp
    from measures as m
    inner join ideal as i
        on i.query_id = m.query_id
       and i.alpha = m.alpha
    where m.family in ('alpha_ndcg', 'nnrbp')
    group by m.run_id, m.query_id, m.measure
),

err_norms as (
    -- ERR_IA's "ideal ideal": every subtopic covered at every rank, sum_{r<=k} m (1 - alpha)^(r-1) / r
    select
        m.run_id,
        m.query_id,
        m.measure,
        sum(m.m * power(1.0 - m.alpha, r.rank - 1) / r.rank order by r.rank) as norm
    from measures as m
    cross join lateral generate_series(1, m.k) as r(rank)
    where m.family = 'err_ia'
      and m.k > 1
    group by m.run_id, m.query_id, m.measure
),

final as (
    select
        m.run_id,
        m.query_id,
        m.measure,
        case
            when m.m = 0 then 0.0
            when m.family = 'alpha_ndcg' then coalesce(r.dcg / nullif(i.dcg, 0.0), 0.0)
            when m.family = 'err_ia' and m.k = 1 then coalesce(r.err, 0.0)
            when m.family = 'err_ia' then coalesce(r.err, 0.0) / e.norm
            when m.family = 'nrbp' then (1.0 - (1.0 - m.alpha) * m.beta) / m.m * coalesce(r.rbp, 0.0)
            when m.family = 'nnrbp' then coalesce(r.rbp / nullif(i.rbp, 0.0), 0.0)
            when m.family = 'p_ia' then coalesce(r.hits_at_k, 0) / cast(m.k * m.m as double)
            when m.family = 'strec' then coalesce(c.covered, 0) / cast(m.m as double)
        end as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from measures as m
    left join run_sums as r
        on r.run_id = m.run_id
       and r.query_id = m.query_id
       and r.measure = m.measure
    left join ideal_sums as i
        on i.run_id = m.run_id
       and i.query_id = m.query_id
       and i.measure = m.measure
    left join err_norms as e
        on e.run_id = m.run_id
       and e.query_id = m.query_id
       and e.measure = m.measure
    left join covered_at_k as c
        on c.run_id = m.run_id
       and c.query_id = m.query_id
       and c.measure = m.measure
)

select * from final
