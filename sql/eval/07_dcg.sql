-- eval_dcg: the discounted cumulative gains the nDCG families divide: of every run's ranking and of
-- every query's ideal ranking, under each gain scheme of sql/eval/06_gains.sql.
-- Grain: eval_dcg_steps one row per run x query x scheme x retrieved document with a nonzero gain;
-- eval_ideal_dcg one row per query x scheme x ideal position; eval_dcg_totals one row per run x
-- evaluated query x gain measure (with its scheme).
-- Inputs: eval_gain_schemes, eval_gain_judged, eval_gain_ideal (sql/eval/06_gains.sql),
-- eval_run_queries (num_ret = n, num_rel = R). Run by warehouse/evaluate.py after 06_gains.sql when
-- a measure of ndcg, ndcg_cut, ndcg_rel or Rndcg is evaluated (sql/measures/ndcg*.sql, rndcg.sql).
-- trec_eval: the discount of rank r is log2(r + 1); DCG sums gain / log2(r + 1) down the ranking,
-- IDCG the same down the ideal ranking (every judged document with gain > 0, by gain descending).
create or replace temp table eval_dcg_steps as
-- running DCG at every retrieved document that changes it
select
    run_id,
    query_id,
    scheme,
    rank,
    gain,
    sum(gain / log2(cast(rank + 1 as double))) over (
        partition by run_id, query_id, scheme order by rank rows between unbounded preceding and current row
    ) as dcg_so_far
from eval_gain_judged
where gain <> 0;

create or replace temp table eval_ideal_dcg as
-- running IDCG at every ideal position, and the gain of the next one (Rndcg's change points)
select
    query_id,
    scheme,
    position,
    gain,
    lead(gain) over (partition by query_id, scheme order by position) as next_gain,
    sum(gain / log2(cast(position + 1 as double))) over (
        partition by query_id, scheme order by position rows between unbounded preceding and current row
    ) as idcg_so_far
from eval_gain_ideal;

create or replace temp table eval_dcg_totals as
with dcg_totals as (
    select
        run_id,
        query_id,
        scheme,
        arg_max(dcg_so_far, rank) as dcg,
        count(*) filter (where gain > 0) as positive_retrieved
    from eval_dcg_steps
    group by run_id, query_id, scheme
),

ideal_totals as (
    select
        query_id,
        scheme,
        max(position) as nrel,
        arg_max(idcg_so_far, position) as idcg
    from eval_ideal_dcg
    group by query_id, scheme
),

final as (
    -- every (run, query, measure) a measure file scores, with the whole-ranking totals of its scheme
    select
        q.run_id,
        q.query_id,
        q.num_ret,
        q.num_rel,
        s.measure,
        s.scheme,
        coalesce(d.dcg, 0.0) as dcg,
        coalesce(d.positive_retrieved, 0) as positive_retrieved,
        coalesce(i.nrel, 0) as nrel,
        coalesce(i.idcg, 0.0) as idcg
    from eval_run_queries as q
    cross join eval_gain_schemes as s
    left join dcg_totals as d
        on d.run_id = q.run_id
       and d.query_id = q.query_id
       and d.scheme = s.scheme
    left join ideal_totals as i
        on i.query_id = q.query_id
       and i.scheme = s.scheme
)

select * from final;
