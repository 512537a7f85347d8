-- qrels_summary: the facts about a qrels set that every report states.
-- Grain: one row. Inputs: qrels_sets, qrels; $qrels_set_id, $level (relevant means grade >= level).
-- trec_eval: a query whose judgments hold no grade >= level has no relevant document; by default
-- it is evaluated and scores 0 on the measures that need one.
with per_query as (
    select
        query_id,
        count(*) as judgments,
        count(*) filter (where grade >= $level) as relevant
    from qrels
    where qrels_set_id = $qrels_set_id
    group by query_id
),

final as (
    select
        s.name,
        s.description,
        s.query_count as queries,
        s.judgment_count as judgments,
        coalesce(sum(p.relevant), 0) as relevant,
        count(p.query_id) filter (where p.relevant = 0) as queries_without_relevant
    from qrels_sets as s
    left join per_query as p on true
    where s.qrels_set_id = $qrels_set_id
    group by s.name, s.description, s.query_count, s.judgment_count
)

select * from final
