-- eval_dcg: the discounted cumulative gains the nDCG families divide: of every run's ranking and of
-- every query's ideal ranking, under each gain scheme of sql/eval/06_gains.sql.
-- Grain: eval_dcg_steps one row per run x query x scheme x retrieved document with a nonzero gain;
-- eval_ideal_dcg one row per query x scheme x ideal position; eval_dcg_last one row per run x query
-- x scheme with a nonzero gain retrieved; eval_dcg_totals one row per run x
-- evaluated query x gain measure (with its scheme).
-- Inputs: eval_gain_schemes, eval_gain_judged, eval_gain_ideal (sql/eval/06_gains.sql),
-- eval_run_queries (num_ret = n, num_rel = R). Run by warehouse/evaluation/evaluator.py after 06_gains.sql when
-- a measure of ndcg, ndcg_cut, ndcg_rel or Rndcg is evaluated (sql/measures/ndcg*.sql, rndcg.sql).
-- trec_eval: the discount of rank r is log2(r + 1); DCG sums gain / log2(r + 1) down the ranking,
-- IDCG the same down the ideal ranking of 06_gains.sql (by gain descending, in trec_eval's order).
-- log2(x) is written ln(x) / ln(2), as PostgreSQL has no log2 of a double; trec_eval calls C's
-- log2, from which the quotient can differ in the last bit, far below trec_eval's 4 printed
-- decimals (tests/test_conformance.py). The running sums add the terms one by one in rank order,
-- as trec_eval's loop does, on every engine: PostgreSQL's and Spark's window sums do; DuckDB's adds
-- partial sums of a segment tree (another order, other last bits: 1,328 of DL19's nDCG values
-- differed from PostgreSQL's, by up to 1.4e-15), so on DuckDB these two windows are computed frame
-- by frame (debug_window_mode 'separate', DuckDB's own naive mode: quadratic in a partition's rows,
-- which are the retrieved documents with a gain and the ideal positions: on DL19 and a 250-query,
-- 1000-deep TREC run within the noise; at worst, every one of 1,000 retrieved documents relevant in
-- each of 50 queries x 10 runs, `irw trec-eval -m ndcg -m ndcg_cut -m Rndcg -m ndcg_rel` took 5.3 s
-- instead of 4.3 s). tests/test_postgres.py holds the two engines to the same bits. A total is the
-- running sum at the ranking's last row, found by its rank (a hash aggregate and a join: cheaper
-- in DuckDB than numbering the rows from the end).
-- irw: duckdb only (the running sums below in rank order: see the header)
set debug_window_mode = 'separate';

drop table if exists eval_dcg_steps;

create temp table eval_dcg_steps as
-- running DCG at every retrieved document that changes it
select
    run_id,
    query_id,
    scheme,
    rank,
    gain,
    sum(gain / (ln(cast(rank + 1 as double)) / ln(cast(2 as double)))) over (
        partition by run_id, query_id, scheme order by rank rows between unbounded preceding and current row
    ) as dcg_so_far
from eval_gain_judged
where gain <> 0;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_dcg_steps;

drop table if exists eval_ideal_dcg;

create temp table eval_ideal_dcg as
-- running IDCG at every ideal position, and the gain of the next one (Rndcg's change points)
select
    query_id,
    scheme,
    position,
    gain,
    lead(gain) over (partition by query_id, scheme order by position) as next_gain,
    sum(gain / (ln(cast(position + 1 as double)) / ln(cast(2 as double)))) over (
        partition by query_id, scheme order by position rows between unbounded preceding and current row
    ) as idcg_so_far
from eval_gain_ideal;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_ideal_dcg;

-- irw: duckdb only (back to DuckDB's default, its segment trees, for every other window)
set debug_window_mode = 'window';

drop table if exists eval_dcg_last;

-- the running DCG at each ranking's last row with a gain, a table of its own with its statistics:
-- joined within eval_dcg_totals' statement, PostgreSQL estimated it at one row and nested-looped
-- every (run, query) over all of it (25M comparisons, 9 s of a 100-run leaderboard)
create temp table eval_dcg_last as
with last_steps as (
    select
        run_id,
        query_id,
        scheme,
        max(rank) as last_rank,
        count(*) filter (where gain > 0) as positive_retrieved
    from eval_dcg_steps
    group by run_id, query_id, scheme
),

dcg_totals as (
    -- the running DCG at the last rank with a gain
    select
        l.run_id,
        l.query_id,
        l.scheme,
        d.dcg_so_far as dcg,
        l.positive_retrieved
    from last_steps as l
    inner join eval_dcg_steps as d
        on d.run_id = l.run_id
       and d.query_id = l.query_id
       and d.scheme = l.scheme
       and d.rank = l.last_rank
)

select * from dcg_totals;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_dcg_last;

drop table if exists eval_dcg_totals;

create temp table eval_dcg_totals as
with ideal_ends as (
    select
        query_id,
        scheme,
        max(position) as nrel
    from eval_ideal_dcg
    group by query_id, scheme
),

ideal_totals as (
    -- positions run 1..n: the last one is the ideal's length, its running IDCG the total
    select
        e.query_id,
        e.scheme,
        e.nrel,
        i.idcg_so_far as idcg
    from ideal_ends as e
    inner join eval_ideal_dcg as i
        on i.query_id = e.query_id
       and i.scheme = e.scheme
       and i.position = e.nrel
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
    left join eval_dcg_last as d
        on d.run_id = q.run_id
       and d.query_id = q.query_id
       and d.scheme = s.scheme
    left join ideal_totals as i
        on i.query_id = q.query_id
       and i.scheme = s.scheme
)

select * from final;

-- irw: postgres only (statistics for the planner, as in 01_qrels.sql)
analyze eval_dcg_totals
