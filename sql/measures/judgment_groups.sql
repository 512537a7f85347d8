-- judgment groups: map_avgjg, P_avgjg_k and Rprec_mult_avgjg_x, trec_eval's measures over
-- several sets of judgments of one query (one per judgment group, a user; trec_eval -R qrels_jg).
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: qrels_subtopics (the groups: a qrels_jg file `qid group docid grade` is stored as a
-- subtopic set, the group in the subtopic column) of $qrels_set_id, eval_ranked (the ranks of the
-- retrieved judged documents, after -M), eval_run_queries (num_ret), eval_params (measure, family,
-- k, x) of $measures, $level.
-- trec_eval (m_map_avgjg.c, m_P_avgjg.c, m_Rprec_mult_avgjg.c over form_res_rels_jg.c): each
-- group is evaluated alone against the one ranking, and the query's value is the mean over its
-- groups (every group of the query counts, one without relevant documents scoring 0). Within a
-- group a document is relevant when its grade there is >= level; R counts the group's judged
-- documents (grade >= 0) that are relevant. map: sum over the group's retrieved relevant documents
-- of (relevant so far / rank), over R. P_avgjg_k: relevant in the top k over k. Rprec_mult_x: k =
-- floor(x R + 0.9) of the group; relevant in the top k over k (when k passes num_ret, that is every
-- relevant one retrieved), 0 when k = 0.
with params as (
    select measure, family, k, x
    from eval_params
    where measure in (select unnest($measures))
),

groups as (
    select
        query_id,
        subtopic as jg,
        count(*) filter (where grade >= $level and grade >= 0) as num_rel
    from qrels_subtopics
    where qrels_set_id = $qrels_set_id
    group by query_id, subtopic
),

group_counts as (
    select query_id, count(*) as num_jgs
    from groups
    group by query_id
),

-- the retrieved documents relevant in each group, with how many of that group's sit at or above
relevant as (
    select
        r.run_id,
        r.query_id,
        j.subtopic as jg,
        r.rank,
        row_number() over (partition by r.run_id, r.query_id, j.subtopic order by r.rank) as rel_so_far
    from eval_ranked as r
    inner join qrels_subtopics as j
        on j.qrels_set_id = $qrels_set_id
       and j.query_id = r.query_id
       and j.doc_id = r.doc_id
    where j.grade >= $level
),

per_group as (
    select
        q.run_id,
        q.query_id,
        g.jg,
        g.num_rel,
        p.measure,
        p.family,
        case
            when p.family = 'P_avgjg' then p.k
            when p.family = 'Rprec_mult_avgjg' then cast(floor(p.x * g.num_rel + 0.9) as bigint)
        end as cutoff
    from eval_run_queries as q
    inner join groups as g
        on g.query_id = q.query_id
    cross join params as p
),

group_values as (
    select
        pg.run_id,
        pg.query_id,
        pg.jg,
        pg.measure,
        case
            when pg.family = 'map_avgjg' then coalesce(
                sum(cast(r.rel_so_far as double) / r.rank order by r.rank) / nullif(cast(pg.num_rel as double), 0), 0.0)
            when pg.cutoff = 0 then 0.0
            else cast(count(r.rank) filter (where r.rank <= pg.cutoff) as double) / pg.cutoff
        end as value
    from per_group as pg
    left join relevant as r
        on r.run_id = pg.run_id
       and r.query_id = pg.query_id
       and r.jg = pg.jg
    group by pg.run_id, pg.query_id, pg.jg, pg.measure, pg.family, pg.num_rel, pg.cutoff
),

final as (
    select
        v.run_id,
        v.query_id,
        v.measure,
        sum(v.value order by v.jg) / max(c.num_jgs) as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from group_values as v
    inner join group_counts as c
        on c.query_id = v.query_id
    group by v.run_id, v.query_id, v.measure
)

select * from final
