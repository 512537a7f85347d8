-- eval_run_queries: the query set each run is evaluated on, with the counts measures divide by.
-- Grain: one row per run x evaluated query.
-- Inputs: run_queries (per-query document counts stored at ingest), runs, eval_ranked,
-- eval_query_stats, $run_ids, $depth (-M), $complete (trec_eval -c), $judged_only (trec_eval -J),
-- $exclude_norel (--norel exclude).
-- trec_eval: a run is evaluated on the queries it shares with the qrels; with -c on every qrels
-- query, a query the run lacks scoring as an empty ranking (num_ret = 0). num_ret is the number of
-- documents after -M, and under -J the number of judged ones (a query -J empties is still
-- evaluated, with num_ret = 0). in_run tells the two kinds of empty ranking apart (trec_eval
-- computes some measures of an emptied ranking as 0/0).
-- cascade: as eval_qrels (01_qrels.sql), for the view of 04b_run_rows_graded.sql
drop table if exists eval_run_queries cascade;

create temp table eval_run_queries as
with judged_counts as (
    select
        run_id,
        query_id,
        cast(count(*) as bigint) as num_judged_ret,
        cast(count(*) filter (where is_rel) as bigint) as num_rel_ret,
        cast(count(*) filter (where is_nonrel) as bigint) as num_nonrel_ret
    from eval_ranked
    group by run_id, query_id
),

answered as (
    select
        rq.run_id,
        rq.query_id,
        true as in_run,
        least(rq.num_ret, $depth) as num_ret_within_depth
    from run_queries as rq
    inner join eval_query_stats as s
        on s.query_id = rq.query_id
    where rq.run_id in (select unnest($run_ids))
),

missing as (
    select
        r.run_id,
        s.query_id,
        false as in_run,
        cast(0 as bigint) as num_ret_within_depth
    from runs as r
    cross join eval_query_stats as s
    where $complete
      and r.run_id in (select unnest($run_ids))
      and not exists (
          select 1 from answered as a where a.run_id = r.run_id and a.query_id = s.query_id
      )
),

query_set as (
    select * from answered
    union all
    select * from missing
),

final as (
    select
        qs.run_id,
        qs.query_id,
        qs.in_run,
        case
            when $judged_only then coalesce(j.num_judged_ret, 0)
            else qs.num_ret_within_depth
        end as num_ret,
        coalesce(j.num_rel_ret, 0) as num_rel_ret,
        coalesce(j.num_nonrel_ret, 0) as num_nonrel_ret,
        s.num_rel,
        s.num_nonrel,
        s.num_judged
    from query_set as qs
    inner join eval_query_stats as s
        on s.query_id = qs.query_id
    left join judged_counts as j
        on j.run_id = qs.run_id
       and j.query_id = qs.query_id
    where not ($exclude_norel and s.num_rel = 0)
)

select * from final;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_run_queries
