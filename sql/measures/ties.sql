-- tie-aware family: AP, nDCG@k, P@k, RR and R@k over every order of the documents a run ties,
-- as AP(ties=expected|min|max), nDCG(ties=...)@k, P(ties=...)@k, RR(ties=...), R(ties=...)@k.
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_run_rows_graded (sql/eval/04b: every run row of the query set with its grade and
-- is_rel), eval_run_queries (num_rel = R at the evaluation's level), eval_qrels (the ideal's
-- grades), $compat (which scores tie), $depth (-M), $judged_only (-J), eval_params (measure,
-- family, k, ties; families map_ties, ndcg_cut_ties, P_ties, recip_rank_ties, recall_ties) of
-- $measures.
-- Ties: documents tie when trec_eval could not order them by score: equal as 32-bit floats under
-- --compat 9 (trec_eval 9.0.8), equal doubles under --compat 10. trec_eval breaks them by docid;
-- here every order of each tie group counts, the groups independent and each order equally likely.
--   ties=expected: the mean over all those orders, in closed form (McSherry and Najork, "Computing
--     information retrieval performance measures efficiently in the presence of tied scores",
--     ECIR 2008): a group of n documents holding r relevant ones (gain sum G) after `before`
--     documents and `rel_before` relevant ones puts a relevant document at each of its positions
--     with chance r / n, and two at two positions with chance r (r - 1) / (n (n - 1)). So
--       E[rel in top c]  = r * (number of the group's positions <= c) / n         (P@k, R@k)
--       E[DCG@c]         = sum over the group's positions p <= c of (G / n) / log2(p + 1)
--       E[AP@c] * R      = sum over positions before + i <= c of
--                          (r / n (rel_before + 1) + (i - 1) r (r - 1) / (n (n - 1))) / (before + i)
--       E[RR]            = sum over i of P(the first relevant of the first group holding one is its
--                          i-th) / (before + i), P = C(n - i, r - 1) / C(n, r)
--                          = r / n * prod over j < i of (n - r - j + 1) / (n - j), summed as
--                          logarithms down the group.
--   ties=min / ties=max: the lowest / highest value any order gives: every one of these measures
--     only grows when a more relevant document moves above a less relevant one, so max puts each
--     group's documents by grade descending and min by grade ascending.
-- trec_eval's conventions otherwise: P@k divides by k, R@k and AP by R (0 when R = 0), nDCG@k has
-- grades > 0 as gains and the ideal of every judged document cut at k. -M N makes N a cutoff of
-- every measure (which documents fall within the depth is part of the tie order); -J counts only
-- judged documents with grade >= 0 in the groups. -M and -J together are refused before this runs.
-- tests/test_ties.py checks each against every permutation of a tie group, exactly.
with params as (
    select
        measure,
        family,
        ties,
        -- the rank cutoff each measure reads, the depth included
        cast(least(case when family in ('map_ties', 'recip_rank_ties') then $depth else k end, $depth) as bigint) as c,
        k
    from eval_params
    where measure in (select unnest($measures))
),

in_scope as (
    select
        run_id,
        query_id,
        doc_id,
        case when $compat = 9 then cast(cast(score as float) as double) else score end as tie_score,
        grade,
        is_rel,
        case when grade > 0 then cast(grade as double) else 0.0 end as gain
    from eval_run_rows_graded
    where not $judged_only or grade >= 0
),

tie_groups as (
    select
        run_id,
        query_id,
        tie_score,
        count(*) as n,
        count(*) filter (where is_rel) as r,
        sum(gain) as gain_sum
    from in_scope
    group by run_id, query_id, tie_score
),

placed as (
    -- where each group starts: the documents, and the relevant ones, of the groups above it
    select
        run_id,
        query_id,
        tie_score,
        n,
        r,
        gain_sum,
        cast(coalesce(sum(n) over (
            partition by run_id, query_id order by tie_score desc rows between unbounded preceding and 1 preceding
        ), 0) as bigint) as before,
        cast(coalesce(sum(r) over (
            partition by run_id, query_id order by tie_score desc rows between unbounded preceding and 1 preceding
        ), 0) as bigint) as rel_before
    from tie_groups
),

useful_groups as (
    select * from placed where r > 0 or gain_sum > 0
),

first_relevant_group as (
    select *
    from (
        select
            *,
            row_number() over (partition by run_id, query_id order by tie_score desc) as nth
        from placed
        where r > 0
    ) as relevant_groups
    where nth = 1
),

-- expected values ---------------------------------------------------------------------------
group_positions as (
    -- every (group, measure, position i of the group within the cutoff) the sums below need
    select
        g.run_id,
        g.query_id,
        p.measure,
        p.family,
        g.n,
        g.r,
        g.gain_sum,
        g.before,
        g.rel_before,
        x.i
    from useful_groups as g
    inner join params as p
        on p.ties = 'expected'
       and p.family in ('map_ties', 'ndcg_cut_ties')
       and p.c > g.before
    cross join lateral generate_series(1, least(g.n, p.c - g.before)) as x(i)
),

expected_sums as (
    select
        run_id,
        query_id,
        measure,
        sum(case family
            when 'map_ties' then
                (cast(r as double) / n * (rel_before + 1)
                 + case when n > 1 then (i - 1) * cast(r as double) * (r - 1) / (cast(n as double) * (n - 1)) else 0.0 end)
                / (before + i)
            else gain_sum / n / (ln(cast(before + i + 1 as double)) / ln(cast(2 as double)))
        end order by before, i) as total
    from group_positions
    group by run_id, query_id, measure
),

expected_counts as (
    -- P@k and R@k: expected relevant documents in the top c
    select
        g.run_id,
        g.query_id,
        p.measure,
        sum(cast(g.r as double) * (least(g.n, p.c - g.before)) / g.n order by g.before) as total
    from useful_groups as g
    inner join params as p
        on p.ties = 'expected'
       and p.family in ('P_ties', 'recall_ties')
       and p.c > g.before
    group by g.run_id, g.query_id, p.measure
),

rr_positions as (
    -- every position i of the first group holding a relevant document at which its first relevant
    -- one can be (i <= n - r + 1), within the cutoff
    select
        f.run_id,
        f.query_id,
        p.measure,
        f.n,
        f.r,
        f.before,
        x.i
    from first_relevant_group as f
    inner join params as p
        on p.ties = 'expected'
       and p.family = 'recip_rank_ties'
    cross join lateral generate_series(1, least(f.n - f.r + 1, p.c - f.before)) as x(i)
),

rr_chances as (
    -- ln P(the first relevant document is the group's i-th): ln(r / n) plus, for each j < i,
    -- ln((n - r - j + 1) / (n - j)) (the j-th not relevant)
    select
        run_id,
        query_id,
        measure,
        before,
        i,
        ln(cast(r as double)) - ln(cast(n as double)) + coalesce(sum(
            case when i <= n - r then ln(cast(n - r - i + 1 as double)) - ln(cast(n - i as double)) else 0.0 end
        ) over (
            partition by run_id, query_id, measure order by i rows between unbounded preceding and 1 preceding
        ), 0.0) as log_chance
    from rr_positions
),

expected_rr as (
    -- a chance below e^-700 is held at e^-700 (PostgreSQL's exp() refuses to underflow)
    select
        run_id,
        query_id,
        measure,
        sum(exp(greatest(log_chance, -700.0)) / (before + i) order by i) as total
    from rr_chances
    group by run_id, query_id, measure
),

-- min and max -------------------------------------------------------------------------------
judged_in_groups as (
    -- a judged document's place within its group by grade, highest first
    select
        d.run_id,
        d.query_id,
        d.is_rel,
        d.gain,
        g.before,
        g.n,
        row_number() over (partition by d.run_id, d.query_id, d.tie_score order by d.grade desc, d.doc_id) as by_grade
    from in_scope as d
    inner join placed as g
        on g.run_id = d.run_id
       and g.query_id = d.query_id
       and g.tie_score = d.tie_score
    where d.is_rel or d.gain > 0
),

extreme_ranks as (
    -- max: most relevant first within each group; min: most relevant last
    select
        j.run_id,
        j.query_id,
        p.measure,
        p.family,
        p.c,
        j.is_rel,
        j.gain,
        case when p.ties = 'max' then j.before + j.by_grade else j.before + j.n + 1 - j.by_grade end as rank
    from judged_in_groups as j
    inner join params as p
        on p.ties in ('min', 'max')
),

extreme_relevant as (
    select
        run_id,
        query_id,
        measure,
        rank,
        row_number() over (partition by run_id, query_id, measure order by rank) as rel_so_far
    from extreme_ranks
    where is_rel and rank <= c
),

extreme_sums as (
    select
        run_id,
        query_id,
        measure,
        sum(cast(rel_so_far as double) / rank order by rank) as precision_sum,
        count(*) as rel_at_c,
        min(rank) as first_rank
    from extreme_relevant
    group by run_id, query_id, measure
),

extreme_dcg as (
    select
        run_id,
        query_id,
        measure,
        sum(gain / (ln(cast(rank + 1 as double)) / ln(cast(2 as double))) order by rank) as dcg
    from extreme_ranks
    where family = 'ndcg_cut_ties'
      and gain > 0
      and rank <= c
    group by run_id, query_id, measure
),

-- the ideal DCG@k of nDCG@k (trec_eval's ndcg_cut: every judged document with grade > 0) --------
ideal as (
    select
        query_id,
        cast(grade as double) as gain,
        row_number() over (partition by query_id order by grade desc) as position
    from eval_qrels
    where grade > 0
),

ideal_dcg as (
    select
        i.query_id,
        p.measure,
        sum(i.gain / (ln(cast(i.position + 1 as double)) / ln(cast(2 as double))) order by i.position) as idcg
    from ideal as i
    inner join params as p
        on p.family = 'ndcg_cut_ties'
       and i.position <= p.k
    group by i.query_id, p.measure
),

final as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        coalesce(case
            when p.ties = 'expected' then case p.family
                when 'map_ties' then es.total / nullif(cast(q.num_rel as double), 0.0)
                when 'ndcg_cut_ties' then es.total / nullif(i.idcg, 0.0)
                when 'P_ties' then ec.total / p.k
                when 'recall_ties' then ec.total / nullif(cast(q.num_rel as double), 0.0)
                when 'recip_rank_ties' then er.total
            end
            else case p.family
                when 'map_ties' then xs.precision_sum / nullif(cast(q.num_rel as double), 0.0)
                when 'ndcg_cut_ties' then xd.dcg / nullif(i.idcg, 0.0)
                when 'P_ties' then cast(xs.rel_at_c as double) / p.k
                when 'recall_ties' then cast(xs.rel_at_c as double) / nullif(cast(q.num_rel as double), 0.0)
                when 'recip_rank_ties' then 1.0 / xs.first_rank
            end
        end, 0.0) as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from eval_run_queries as q
    cross join params as p
    left join expected_sums as es
        on es.run_id = q.run_id and es.query_id = q.query_id and es.measure = p.measure
    left join expected_counts as ec
        on ec.run_id = q.run_id and ec.query_id = q.query_id and ec.measure = p.measure
    left join expected_rr as er
        on er.run_id = q.run_id and er.query_id = q.query_id and er.measure = p.measure
    left join extreme_sums as xs
        on xs.run_id = q.run_id and xs.query_id = q.query_id and xs.measure = p.measure
    left join extreme_dcg as xd
        on xd.run_id = q.run_id and xd.query_id = q.query_id and xd.measure = p.measure
    left join ideal_dcg as i
        on i.query_id = q.query_id and i.measure = p.measure
)

select * from final
