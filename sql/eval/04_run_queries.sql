-- eval_run_queries: the query set each run is evaluated on, with the counts measures divide by.
-- Grain: one row per run x evaluated query.
-- Inputs: eval_ranked, run_rows, eval_query_stats, $run_ids, $complete (trec_eval -c),
-- $judged_only (trec_eval -J).
-- trec_eval: by default a run is evaluated on the queries it shares with the qrels; with -c on
-- every qrels query, a query the run lacks scoring as an empty ranking (num_ret = 0). Under -J a
-- query whose retrieved documents are all unjudged is still evaluated, with num_ret = 0.
-- in_run tells the two kinds of empty ranking apart (trec_eval computes some measures of an
-- emptied ranking as 0/0).
create or replace temp table eval_run_queries as
with retrieved as (
    select
        run_id,
        query_id,
        cast(count(*) as bigint) as num_ret,
        cast(count(*) filter (where is_rel) as bigint) as num_rel_ret,
        cast(count(*) filter (where is_nonrel) as bigint) as num_nonrel_ret
    from eval_ranked
    group by run_id, query_id
),

run_ids as (
    select unnest($run_ids) as run_id
),

run_queries_before_judged_filter as (
    -- only needed under -J, which can empty a ranking; DuckDB prunes this when $judged_only is false
    select distinct rr.run_id, rr.query_id
    from run_rows as rr
    inner join eval_query_stats as s
        on s.query_id = rr.query_id
    where $judged_only
      and rr.run_id in (select run_id from run_ids)
),

answered as (
    select run_id, query_id from retrieved
    union
    select run_id, query_id from run_queries_before_judged_filter
),

query_set as (
    select run_id, query_id, true as in_run from answered
    union all
    select r.run_id, s.query_id, false as in_run
    from run_ids as r
    cross join eval_query_stats as s
    where $complete
      and not exists (
          select 1 from answered as i where i.run_id = r.run_id and i.query_id = s.query_id
      )
),

final as (
    select
        qs.run_id,
        qs.query_id,
        qs.in_run,
        coalesce(rt.num_ret, 0) as num_ret,
        coalesce(rt.num_rel_ret, 0) as num_rel_ret,
        coalesce(rt.num_nonrel_ret, 0) as num_nonrel_ret,
        s.num_rel,
        s.num_nonrel,
        s.num_judged
    from query_set as qs
    inner join eval_query_stats as s
        on s.query_id = qs.query_id
    left join retrieved as rt
        on rt.run_id = qs.run_id
       and rt.query_id = qs.query_id
)

select * from final
