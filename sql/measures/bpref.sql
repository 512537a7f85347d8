-- bpref and gm_bpref (Buckley and Voorhees 2004), as trec_eval computes them.
-- Grain: one row per run x evaluated query x requested measure.
-- Inputs: eval_judged (nonrel_so_far counts judged non-relevant documents at or above a rank),
-- eval_run_queries (num_rel = R, num_nonrel = N), eval_params (measure) of $measures.
-- trec_eval: every retrieved relevant document adds 1 - min(nr, R) / min(N, R), where nr is the
-- number of judged non-relevant documents (0 <= grade < level) ranked above it, or 1 when nr = 0;
-- the sum is divided by R (0 when R = 0). Unjudged and negatively graded documents are skipped.
-- gm_bpref stores the same value; its summary is the geometric mean (floor 1e-5).
with params as (
    -- the measures of this file being computed (eval_params holds every measure of the step)
    select measure
    from eval_params
    where measure in (select unnest($measures))
),

contributions as (
    select
        j.run_id,
        j.query_id,
        sum(
            case
                when j.nonrel_so_far > 0
                    then 1.0 - cast(least(j.nonrel_so_far, q.num_rel) as double) / least(q.num_nonrel, q.num_rel)
                else 1.0
            end
            order by j.rank
        ) as bpref_sum
    from eval_judged as j
    inner join eval_run_queries as q
        on q.run_id = j.run_id
       and q.query_id = j.query_id
    where j.is_rel
    group by j.run_id, j.query_id
),

final as (
    select
        q.run_id,
        q.query_id,
        p.measure,
        coalesce(c.bpref_sum / nullif(cast(q.num_rel as double), 0), 0.0) as value,
        cast(null as double) as numerator,
        cast(null as double) as denominator
    from eval_run_queries as q
    cross join params as p
    left join contributions as c
        on c.run_id = q.run_id
       and c.query_id = q.query_id
)

select * from final
