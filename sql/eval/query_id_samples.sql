-- query_id_samples: the first query ids (in text order) of a run and of a qrels set, for the
-- message that the set judges none of the run's queries (warehouse/evaluation/evaluator.py,
-- _no_judged_query): ids written two ways (1 and 001, q1 and 1) show there side by side.
-- Grain: at most 3 rows per side, the run's first ('run', then 'qrels'), each in id order.
-- Inputs: runs, run_queries, qrels_sets, qrels; $run, $qrels (names).
-- trec_eval: none (a message only; trec_eval says "No queries with both results and relevance info").
with run_side as (
    select rq.query_id
    from run_queries as rq
    inner join runs as r
        on r.run_id = rq.run_id
    where r.name = $run
    order by rq.query_id
    limit 3
),

qrels_side as (
    select distinct q.query_id
    from qrels as q
    inner join qrels_sets as s
        on s.qrels_set_id = q.qrels_set_id
    where s.name = $qrels
    order by q.query_id
    limit 3
),

final as (
    select 1 as side_order, 'run' as side, query_id from run_side
    union all
    select 2 as side_order, 'qrels' as side, query_id from qrels_side
)

select side, query_id from final
order by side_order, query_id
