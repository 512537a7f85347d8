-- qrels listing: the stored qrels sets for `irw qrels` and Warehouse.qrels_sets().
-- Grain: one row per qrels set. "relevant" counts judgments with grade >= 1 (trec_eval's default level).
-- Inputs: qrels_sets, qrels.
-- trec_eval: none (a listing; no measure reads it).
with relevant as (
    select
        qrels_set_id,
        count(*) filter (where grade >= 1) as relevant
    from qrels
    group by qrels_set_id
),

final as (
    select
        s.name,
        s.query_count as queries,
        s.judgment_count as judgments,
        coalesce(r.relevant, 0) as relevant,
        s.created_at,
        s.description
    from qrels_sets as s
    left join relevant as r on r.qrels_set_id = s.qrels_set_id
)

select * from final
order by created_at, name
