-- query_relevance: how many judged and relevant documents each query of a qrels set has.
-- Grain: one row per query of the qrels set, in byte order of query id.
-- Inputs: qrels; $qrels_set_id, $level (relevant means grade >= level, trec_eval -l).
-- trec_eval: relevant is a query's num_rel at -l (grade >= level), as eval/02_query_stats.sql
-- counts it.
with final as (
    select
        query_id,
        count(*) as judgments,
        count(*) filter (where grade >= $level) as relevant
    from qrels
    where qrels_set_id = $qrels_set_id
    group by query_id
    order by query_id
)

select * from final
