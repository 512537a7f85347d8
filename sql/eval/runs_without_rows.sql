-- runs without rows: the runs of a computation whose rows the warehouse does not hold (stored by
-- `irw eval --engine spark --into`: their scores and per-query counts, not their rows; schema 11),
-- with how many of their queries the qrels judge (from run_queries, which such runs keep).
-- Grain: one row per such run, in name order. Inputs: runs, run_queries, qrels_sets,
-- eval/judged_queries.sql; $run_ids, $qrels_set_id.
-- trec_eval: a measure computed from no rows would be a zero trec_eval never printed, so
-- warehouse/evaluation/evaluator.py refuses to compute any for these runs; a run none of whose
-- queries the qrels judge is said to be of another collection, as for a run with rows.
with final as (
    select
        r.run_id,
        r.name,
        (select name from qrels_sets where qrels_set_id = $qrels_set_id) as qrels,
        count(rq.query_id) as queries,
        count(j.query_id) as judged_queries
    from runs as r
    left join run_queries as rq
        on rq.run_id = r.run_id
    left join "eval/judged_queries.sql" as j
        on j.query_id = rq.query_id
    where r.run_id in (select unnest($run_ids))
      and not coalesce(r.rows_stored, true)
    group by r.run_id, r.name
)

select * from final
order by name
