-- preference measures: trec_eval's all_prefs (prefs_num_prefs_poss, prefs_num_prefs_ful,
-- prefs_num_prefs_ful_ret, prefs_simp, prefs_pair, prefs_avgjg, prefs_avgjg_Rnonrel and their
-- _ret and _imp variants) over a prefs set (trec_eval -R prefs / -R qrels_prefs).
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: preference_judgments and preference_pairs (schemas 14 and 19: the lines, and the
-- transitive preferences a > b of each judgment group of several sub-groups) of $qrels_set_id,
-- run_rows (ranked here), eval_run_queries (the evaluated queries), eval_params (measure, family)
-- of $measures, $depth (-M), $compat.
-- trec_eval (form_prefs_counts.c and m_prefs_*.c):
-- * Order: score descending, ties by docno ascending (form_prefs_counts.c sorts so, unlike the qrels
--   measures), scores as float32 under --compat 9 and doubles under 10; -M keeps the first N. The
--   query's judged documents get docid ranks: the retrieved ones in that order, then the others
--   by docno.
-- * Each preference a > b of a judgment group (jg) is fulfilled when a is retrieved above b (b
--   retrieved, "ret") or a is retrieved and b is not ("imp"); it is possible as "ret" when both are
--   retrieved, "imp" when one is, "notoccur" when neither is.
-- * simp = fulfilled / possible, summed over the query's groups; avgjg = the mean over groups of each
--   group's ratio (a group with nothing possible adds 0), 0 unless that sum is > 0; pair = the mean
--   over document pairs of (groups preferring the higher-ranked doc / groups preferring either). _ret
--   counts only preferences whose two documents are retrieved, _imp leaves out those with neither.
-- * avgjg_Rnonrel: as avgjg, with a group's non-relevant (level 0) documents counted as if there
--   were R of them (R its relevant ones, level > 0): fewer (N < R) add R - N fulfilled preferences per
--   relevant retrieved and R - N possible per relevant; more keep the first R by docid rank and count
--   again - in a group of one sub-group as trec_eval's recalculate() does (every document of the group
--   against each kept one, itself included), else over the kept documents' preferences. The _ret
--   variant takes R and N among retrieved documents (and, as trec_eval, keeps num_rel retrieved
--   non-relevant ones in a group of several sub-groups). A group whose ratio is 0/0 makes the query's
--   value 0 (trec_eval's NaN fails its `sum > 0` test).
-- * num_prefs_poss, num_prefs_ful (ret + imp) and num_prefs_ful_ret are counts summed over queries.
-- A group of one sub-group (every group of -R qrels_prefs) prefers a to b exactly when a's level is
-- higher: its preferences are counted from its documents' levels, never formed as pairs, so the
-- work grows with its documents times its levels, not with the square of its documents. Pairs are
-- read only for groups of several sub-groups (their stored closure), and formed from levels only
-- for prefs_pair in a query of several groups, where one document pair's groups are counted.
with params as (
    select measure, family
    from eval_params
    where measure in (select unnest($measures))
),

query_set as (
    select run_id, query_id
    from eval_run_queries
),

judgments as (
    select query_id, jg, jsg, doc_id, rel_level
    from preference_judgments
    where qrels_set_id = $qrels_set_id
      and query_id in (select query_id from query_set)
),

judged_docs as (
    select distinct query_id, doc_id
    from judgments
),

run_ranks as (
    select
        rr.run_id,
        rr.query_id,
        rr.doc_id,
        row_number() over (
            partition by rr.run_id, rr.query_id
            order by
                case when $compat = 9 then cast(cast(rr.score as float) as double) else rr.score end desc,
                rr.doc_id asc
        ) as rank
    from run_rows as rr
    inner join query_set as q
        on q.run_id = rr.run_id
       and q.query_id = rr.query_id
),

-- trec_eval's docid ranks: retrieved judged documents first, in retrieval order, then the rest by docno
doc_ranks as (
    select
        q.run_id,
        q.query_id,
        d.doc_id,
        r.rank is not null as ret,
        row_number() over (
            partition by q.run_id, q.query_id
            order by case when r.rank is null then 1 else 0 end, r.rank, d.doc_id
        ) as drank
    from query_set as q
    inner join judged_docs as d
        on d.query_id = q.query_id
    left join run_ranks as r
        on r.run_id = q.run_id
       and r.query_id = q.query_id
       and r.doc_id = d.doc_id
       and r.rank <= $depth
),

groups as (
    select query_id, jg, count(distinct jsg) as subgroups
    from judgments
    group by query_id, jg
),

group_counts as (
    select query_id, count(*) as num_jgs
    from groups
    group by query_id
),

-- each document of a group: relevant (level > 0) or not (level 0), its level (read in a group of
-- one sub-group, which rates each document once), its place among the group's documents of its
-- kind (all of them, and the retrieved ones) and how many of the group's retrieved documents rank
-- above it
group_docs as (
    select
        d.run_id,
        d.query_id,
        j.jg,
        j.doc_id,
        j.is_rel,
        j.rel_level,
        d.ret,
        d.drank,
        row_number() over (partition by d.run_id, d.query_id, j.jg, j.is_rel order by d.drank) as kind_pos,
        row_number() over (partition by d.run_id, d.query_id, j.jg, j.is_rel, d.ret order by d.drank) as kind_ret_pos,
        coalesce(cast(sum(case when d.ret then 1 else 0 end) over (
            partition by d.run_id, d.query_id, j.jg
            order by d.drank
            rows between unbounded preceding and 1 preceding
        ) as bigint), 0) as ret_above
    from (
        select query_id, jg, doc_id, max(rel_level) > 0 as is_rel, max(rel_level) as rel_level
        from judgments
        group by query_id, jg, doc_id
    ) as j
    inner join doc_ranks as d
        on d.query_id = j.query_id
       and d.doc_id = j.doc_id
),

group_docs_counted as (
    select
        run_id,
        query_id,
        jg,
        count(*) as num_docs,
        count(*) filter (where ret) as num_ret,
        count(*) filter (where is_rel) as num_rel,
        count(*) filter (where is_rel and ret) as num_rel_ret,
        count(*) filter (where not is_rel) as num_nonrel,
        count(*) filter (where not is_rel and ret) as num_nonrel_ret
    from group_docs
    group by run_id, query_id, jg
),

-- a group of several sub-groups: its stored transitive preferences a > b, each with its two
-- documents' places
pairs as (
    select
        a.run_id,
        a.query_id,
        p.jg,
        p.doc_id,
        p.other_doc_id,
        a.ret as a_ret,
        b.ret as b_ret,
        a.drank as a_rank,
        b.drank as b_rank,
        a.is_rel as a_rel,
        b.is_rel as b_rel,
        -- kept by avgjg_Rnonrel's recalculation in a group of several sub-groups: every relevant
        -- document and the first R non-relevant ones (of the retrieved ones, for _ret)
        a.is_rel or a.kind_pos <= c.num_rel as a_kept,
        b.is_rel or b.kind_pos <= c.num_rel as b_kept,
        a.ret and (a.is_rel or a.kind_ret_pos <= c.num_rel) as a_kept_ret,
        b.ret and (b.is_rel or b.kind_ret_pos <= c.num_rel) as b_kept_ret
    from preference_pairs as p
    inner join group_docs as a
        on a.query_id = p.query_id
       and a.jg = p.jg
       and a.doc_id = p.doc_id
    inner join group_docs as b
        on b.run_id = a.run_id
       and b.query_id = p.query_id
       and b.jg = p.jg
       and b.doc_id = p.other_doc_id
    inner join group_docs_counted as c
        on c.run_id = a.run_id
       and c.query_id = a.query_id
       and c.jg = p.jg
    where p.qrels_set_id = $qrels_set_id
),

closure_counts as (
    select
        run_id,
        query_id,
        jg,
        count(*) filter (where a_ret and b_ret and a_rank < b_rank) as ful_ret,
        count(*) filter (where a_ret and b_ret) as poss_ret,
        count(*) filter (where a_ret and not b_ret) as ful_imp,
        count(*) filter (where a_ret <> b_ret) as poss_imp,
        count(*) filter (where not a_ret and not b_ret) as notoccur,
        -- recalculation, one sub-group (not read here: level_counts' groups)
        cast(0 as bigint) as ec_rel_ful,
        cast(0 as bigint) as ec_rel_poss,
        cast(0 as bigint) as ec_rel_ful_ret,
        cast(0 as bigint) as ec_rel_poss_ret,
        -- recalculation, several sub-groups: the preferences between kept documents
        count(*) filter (where a_kept and b_kept and a_ret and a_rank < b_rank) as pa_ful,
        count(*) filter (where a_kept and b_kept) as pa_poss,
        count(*) filter (where a_kept_ret and b_kept_ret and a_rank < b_rank) as pa_ful_ret,
        count(*) filter (where a_kept_ret and b_kept_ret) as pa_poss_ret
    from pairs
    group by run_id, query_id, jg
),

-- a group of one sub-group: a > b exactly when a's level is higher, so its preferences are counted
-- from each document b and the documents of higher levels (those retrieved, those not, those ranked
-- above b), without forming the pairs: each document against each level of its group, the counts
-- running over the group's documents in docid-rank order
level_docs as (
    select
        d.run_id,
        d.query_id,
        d.jg,
        d.ret,
        d.drank,
        d.is_rel,
        d.rel_level,
        t.rel_level as threshold
    from group_docs as d
    inner join groups as g
        on g.query_id = d.query_id
       and g.jg = d.jg
       and g.subgroups = 1
    inner join (select distinct query_id, jg, rel_level from judgments) as t
        on t.query_id = d.query_id
       and t.jg = d.jg
),

level_counts as (
    select
        run_id,
        query_id,
        jg,
        ret,
        is_rel,
        rel_level,
        threshold,
        cast(sum(case when rel_level > threshold then 1 else 0 end) over (
            partition by run_id, query_id, jg, threshold
            order by drank
            rows between unbounded preceding and current row
        ) as bigint) as higher_above,
        cast(sum(case when rel_level > threshold and ret then 1 else 0 end) over (
            partition by run_id, query_id, jg, threshold
        ) as bigint) as higher_ret,
        cast(sum(case when rel_level > threshold and not ret then 1 else 0 end) over (
            partition by run_id, query_id, jg, threshold
        ) as bigint) as higher_unret
    from level_docs
),

-- per document b (the row at its own level): the preferences a > b. A retrieved b: those a ranked
-- above it are fulfilled (every document above a retrieved one is retrieved); an unretrieved b:
-- every retrieved a fulfils (imp). Between relevant documents (b relevant, so a is too) for
-- avgjg_Rnonrel's recalculation of a group of one sub-group.
level_pair_counts as (
    select
        run_id,
        query_id,
        jg,
        cast(sum(case when ret then higher_above else 0 end) as bigint) as ful_ret,
        cast(sum(case when ret then higher_ret else 0 end) as bigint) as poss_ret,
        cast(sum(case when ret then 0 else higher_ret end) as bigint) as ful_imp,
        cast(sum(case when ret then higher_unret else higher_ret end) as bigint) as poss_imp,
        cast(sum(case when ret then 0 else higher_unret end) as bigint) as notoccur,
        cast(sum(case when not is_rel then 0 when ret then higher_above else higher_ret end) as bigint) as ec_rel_ful,
        cast(sum(case when is_rel then higher_ret + higher_unret else 0 end) as bigint) as ec_rel_poss,
        cast(sum(case when is_rel and ret then higher_above else 0 end) as bigint) as ec_rel_ful_ret,
        cast(sum(case when is_rel and ret then higher_ret else 0 end) as bigint) as ec_rel_poss_ret,
        cast(0 as bigint) as pa_ful,
        cast(0 as bigint) as pa_poss,
        cast(0 as bigint) as pa_ful_ret,
        cast(0 as bigint) as pa_poss_ret
    from level_counts
    where rel_level = threshold
    group by run_id, query_id, jg
),

pair_counts as (
    select * from closure_counts
    union all
    select * from level_pair_counts
),

-- recalculation, one sub-group: every document of the group against each of the first R
-- non-relevant documents (R = num_rel; for _ret, the first num_rel_ret retrieved ones), itself
-- included: per kept non-relevant document, the group's documents (retrieved ones for _ret) and
-- those of them retrieved above it
ec_cross as (
    select
        d.run_id,
        d.query_id,
        d.jg,
        cast(sum(case when d.kind_pos <= c.num_rel then d.ret_above else 0 end) as bigint) as ful,
        cast(sum(case when d.kind_pos <= c.num_rel then c.num_docs else 0 end) as bigint) as poss,
        cast(sum(case when d.ret and d.kind_ret_pos <= c.num_rel_ret then d.ret_above else 0 end) as bigint)
            as ful_ret,
        cast(sum(case when d.ret and d.kind_ret_pos <= c.num_rel_ret then c.num_ret else 0 end) as bigint)
            as poss_ret
    from group_docs as d
    inner join group_docs_counted as c
        on c.run_id = d.run_id
       and c.query_id = d.query_id
       and c.jg = d.jg
    where not d.is_rel
    group by d.run_id, d.query_id, d.jg
),

group_values as (
    select
        c.run_id,
        c.query_id,
        c.jg,
        g.subgroups,
        c.num_rel,
        c.num_rel_ret,
        c.num_nonrel,
        c.num_nonrel_ret,
        coalesce(p.ful_ret, 0) as ful_ret,
        coalesce(p.poss_ret, 0) as poss_ret,
        coalesce(p.ful_imp, 0) as ful_imp,
        coalesce(p.poss_imp, 0) as poss_imp,
        coalesce(p.notoccur, 0) as notoccur,
        case
            when c.num_rel >= c.num_nonrel
                then coalesce(p.ful_ret, 0) + coalesce(p.ful_imp, 0) + c.num_rel_ret * (c.num_rel - c.num_nonrel)
            when g.subgroups = 1 then coalesce(p.ec_rel_ful, 0) + coalesce(x.ful, 0)
            else coalesce(p.pa_ful, 0)
        end as rnonrel_ful,
        case
            when c.num_rel >= c.num_nonrel
                then coalesce(p.poss_ret, 0) + coalesce(p.poss_imp, 0) + coalesce(p.notoccur, 0)
                     + c.num_rel * (c.num_rel - c.num_nonrel)
            when g.subgroups = 1 then coalesce(p.ec_rel_poss, 0) + coalesce(x.poss, 0)
            else coalesce(p.pa_poss, 0)
        end as rnonrel_poss,
        case
            when c.num_rel_ret >= c.num_nonrel_ret
                then coalesce(p.ful_ret, 0) + c.num_rel_ret * (c.num_rel_ret - c.num_nonrel_ret)
            when g.subgroups = 1 then coalesce(p.ec_rel_ful_ret, 0) + coalesce(x.ful_ret, 0)
            else coalesce(p.pa_ful_ret, 0)
        end as rnonrel_ful_ret,
        case
            when c.num_rel_ret >= c.num_nonrel_ret
                then coalesce(p.poss_ret, 0) + c.num_rel * (c.num_rel_ret - c.num_nonrel_ret)
            when g.subgroups = 1 then coalesce(p.ec_rel_poss_ret, 0) + coalesce(x.poss_ret, 0)
            else coalesce(p.pa_poss_ret, 0)
        end as rnonrel_poss_ret
    from group_docs_counted as c
    inner join groups as g
        on g.query_id = c.query_id
       and g.jg = c.jg
    left join pair_counts as p
        on p.run_id = c.run_id
       and p.query_id = c.query_id
       and p.jg = c.jg
    left join ec_cross as x
        on x.run_id = c.run_id
       and x.query_id = c.query_id
       and x.jg = c.jg
),

query_groups as (
    select
        run_id,
        query_id,
        sum(ful_ret) as ful_ret,
        sum(poss_ret) as poss_ret,
        sum(ful_imp) as ful_imp,
        sum(poss_imp) as poss_imp,
        sum(notoccur) as notoccur,
        sum(case when poss_ret + poss_imp + notoccur > 0
                 then cast(ful_ret + ful_imp as double) / (poss_ret + poss_imp + notoccur) else 0.0 end
            order by jg) as avgjg_sum,
        sum(case when poss_ret > 0 then cast(ful_ret as double) / poss_ret else 0.0 end order by jg) as avgjg_ret_sum,
        sum(case when poss_ret + poss_imp > 0
                 then cast(ful_ret + ful_imp as double) / (poss_ret + poss_imp) else 0.0 end
            order by jg) as avgjg_imp_sum,
        sum(case when rnonrel_poss > 0 then cast(rnonrel_ful as double) / rnonrel_poss else 0.0 end
            order by jg) as rnonrel_sum,
        count(*) filter (where rnonrel_poss = 0) as rnonrel_undefined,
        sum(case when rnonrel_poss_ret > 0 then cast(rnonrel_ful_ret as double) / rnonrel_poss_ret else 0.0 end
            order by jg) as rnonrel_ret_sum,
        count(*) filter (where rnonrel_poss_ret = 0) as rnonrel_ret_undefined
    from group_values
    group by run_id, query_id
),

-- prefs_pair in a query of several judgment groups: the preferences of all its groups (the stored
-- ones of groups of several sub-groups, those of one sub-group formed from their levels), only when
-- a prefs_pair measure is asked for. A query of one group needs none: each document pair is
-- preferred by that group one way, so its pair sums are its preference counts.
several_group_pairs as (
    select p.run_id, p.query_id, p.doc_id, p.other_doc_id, p.a_ret, p.b_ret, p.a_rank, p.b_rank
    from pairs as p
    inner join group_counts as n
        on n.query_id = p.query_id
       and n.num_jgs > 1
    where exists (select 1 from params where family in ('prefs_pair', 'prefs_pair_ret', 'prefs_pair_imp'))
    union all
    select a.run_id, a.query_id, a.doc_id, b.doc_id, a.ret, b.ret, a.drank, b.drank
    from group_docs as a
    inner join groups as g
        on g.query_id = a.query_id
       and g.jg = a.jg
       and g.subgroups = 1
    inner join group_counts as n
        on n.query_id = a.query_id
       and n.num_jgs > 1
    inner join group_docs as b
        on b.run_id = a.run_id
       and b.query_id = a.query_id
       and b.jg = a.jg
       and b.rel_level < a.rel_level
    where exists (select 1 from params where family in ('prefs_pair', 'prefs_pair_ret', 'prefs_pair_imp'))
),

-- document pairs, the higher-ranked (smaller docid rank) first, with how many groups prefer each way
doc_pairs as (
    select
        run_id,
        query_id,
        case when a_rank < b_rank then doc_id else other_doc_id end as first_doc,
        case when a_rank < b_rank then other_doc_id else doc_id end as second_doc,
        bool_or(case when a_rank < b_rank then a_ret else b_ret end) as first_ret,
        bool_or(case when a_rank < b_rank then b_ret else a_ret end) as second_ret,
        min(least(a_rank, b_rank)) as first_rank,
        min(greatest(a_rank, b_rank)) as second_rank,
        count(*) filter (where a_rank < b_rank) as first_preferred,
        count(*) filter (where a_rank > b_rank) as second_preferred
    from several_group_pairs
    group by
        run_id,
        query_id,
        case when a_rank < b_rank then doc_id else other_doc_id end,
        case when a_rank < b_rank then other_doc_id else doc_id end
),

pair_sums as (
    select
        run_id,
        query_id,
        sum(case when first_ret and second_ret
                 then cast(first_preferred as double) / (first_preferred + second_preferred) else 0.0 end
            order by first_rank, second_rank) as sum_ret,
        count(*) filter (where first_ret and second_ret) as pairs_ret,
        sum(case when first_ret and not second_ret
                 then cast(first_preferred as double) / (first_preferred + second_preferred) else 0.0 end
            order by first_rank, second_rank) as sum_imp,
        count(*) filter (where first_ret and not second_ret) as pairs_imp,
        count(*) filter (where not first_ret) as pairs_none
    from doc_pairs
    group by run_id, query_id
    union all
    -- one group: the higher-ranked document of a pair is retrieved whenever either is, and each
    -- pair's share is 1 (the group prefers it) or 0
    select
        p.run_id,
        p.query_id,
        cast(p.ful_ret as double) as sum_ret,
        p.poss_ret as pairs_ret,
        cast(p.ful_imp as double) as sum_imp,
        p.poss_imp as pairs_imp,
        p.notoccur as pairs_none
    from pair_counts as p
    inner join group_counts as n
        on n.query_id = p.query_id
       and n.num_jgs = 1
),

per_query as (
    select
        q.run_id,
        q.query_id,
        coalesce(g.ful_ret, 0) as ful_ret,
        coalesce(g.poss_ret, 0) as poss_ret,
        coalesce(g.ful_imp, 0) as ful_imp,
        coalesce(g.poss_imp, 0) as poss_imp,
        coalesce(g.notoccur, 0) as notoccur,
        coalesce(n.num_jgs, 0) as num_jgs,
        coalesce(g.avgjg_sum, 0.0) as avgjg_sum,
        coalesce(g.avgjg_ret_sum, 0.0) as avgjg_ret_sum,
        coalesce(g.avgjg_imp_sum, 0.0) as avgjg_imp_sum,
        case when coalesce(g.rnonrel_undefined, 0) > 0 then 0.0 else coalesce(g.rnonrel_sum, 0.0) end as rnonrel_sum,
        case when coalesce(g.rnonrel_ret_undefined, 0) > 0 then 0.0 else coalesce(g.rnonrel_ret_sum, 0.0) end
            as rnonrel_ret_sum,
        coalesce(s.sum_ret, 0.0) as sum_ret,
        coalesce(s.pairs_ret, 0) as pairs_ret,
        coalesce(s.sum_imp, 0.0) as sum_imp,
        coalesce(s.pairs_imp, 0) as pairs_imp,
        coalesce(s.pairs_none, 0) as pairs_none
    from query_set as q
    left join query_groups as g
        on g.run_id = q.run_id
       and g.query_id = q.query_id
    left join group_counts as n
        on n.query_id = q.query_id
    left join pair_sums as s
        on s.run_id = q.run_id
       and s.query_id = q.query_id
),

valued as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        case p.family
            when 'prefs_num_prefs_poss' then cast(q.poss_ret + q.poss_imp + q.notoccur as double)
            when 'prefs_num_prefs_ful' then cast(q.ful_ret + q.ful_imp as double)
            when 'prefs_num_prefs_ful_ret' then cast(q.ful_ret as double)
            when 'prefs_simp' then coalesce(
                cast(q.ful_ret + q.ful_imp as double) / nullif(q.poss_ret + q.poss_imp + q.notoccur, 0), 0.0)
            when 'prefs_simp_ret' then coalesce(cast(q.ful_ret as double) / nullif(q.poss_ret, 0), 0.0)
            when 'prefs_simp_imp' then coalesce(
                cast(q.ful_ret + q.ful_imp as double) / nullif(q.poss_ret + q.poss_imp, 0), 0.0)
            when 'prefs_pair' then coalesce(
                (q.sum_ret + q.sum_imp) / nullif(q.pairs_ret + q.pairs_imp + q.pairs_none, 0), 0.0)
            when 'prefs_pair_ret' then coalesce(q.sum_ret / nullif(q.pairs_ret, 0), 0.0)
            when 'prefs_pair_imp' then coalesce((q.sum_ret + q.sum_imp) / nullif(q.pairs_ret + q.pairs_imp, 0), 0.0)
            when 'prefs_avgjg' then case when q.avgjg_sum > 0 then q.avgjg_sum / q.num_jgs else 0.0 end
            when 'prefs_avgjg_ret' then case when q.avgjg_ret_sum > 0 then q.avgjg_ret_sum / q.num_jgs else 0.0 end
            when 'prefs_avgjg_imp' then case when q.avgjg_imp_sum > 0 then q.avgjg_imp_sum / q.num_jgs else 0.0 end
            when 'prefs_avgjg_Rnonrel' then case when q.rnonrel_sum > 0 then q.rnonrel_sum / q.num_jgs else 0.0 end
            when 'prefs_avgjg_Rnonrel_ret'
                then case when q.rnonrel_ret_sum > 0 then q.rnonrel_ret_sum / q.num_jgs else 0.0 end
        end as value
    from per_query as q
    cross join params as p
),

final as (
    select
        run_id,
        query_id,
        measure,
        value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from valued
)

select * from final
