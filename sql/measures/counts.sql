-- counts: num_ret, num_rel, num_rel_ret, num_nonrel_judged_ret.
-- Grain: one row per run x evaluated query x requested count.
-- Inputs: eval_run_queries (counts after -M and -J), eval_params (measure, family) of $measures.
-- trec_eval: num_ret counts retrieved documents after -M; num_rel counts judged documents with
-- grade >= level (also for queries the run lacks, under -c); num_nonrel_judged_ret counts
-- retrieved documents judged with 0 <= grade < level. The summary sums them.
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure, family
    from eval_params
    where measure in (select unnest($measures))
),

final as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        cast(case p.family
            when 'num_ret' then q.num_ret
            when 'num_rel' then q.num_rel
            when 'num_rel_ret' then q.num_rel_ret
            when 'num_nonrel_judged_ret' then q.num_nonrel_ret
        end as double) as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from eval_run_queries as q
    cross join params as p
)

select * from final
