-- paired_scores: per-query values of a run and its baseline, side by side, for each pair.
-- Grain: one row per pair x requested measure x query that either run was evaluated on; a query
-- only one of the two has carries a null on the other side (paired tests use the rows with both).
-- Inputs: scores; report_pairs (temporary: pair, run_id, baseline_id), report_wanted (temporary:
-- evaluation_id, stored, measure, position), both filled by warehouse/reports/pairs.py.
-- trec_eval: the values are the -q lines of each run under the evaluation's settings; which
-- queries a run has follows its query set (by default the queries in both run and qrels, every
-- qrels query with -c).
-- The runs' scores and the baselines' are read apart: DuckDB skips the row groups of scores outside
-- the range of run ids a side asks for, and a baseline stored long before the runs made one range
-- of both span most of the table (pages of 10,000 runs read it 100 times).
with run_scores as (
    select
        s.run_id,
        w.position,
        w.measure,
        s.query_id,
        s.value
    from scores as s
    inner join report_wanted as w
        on w.evaluation_id = s.evaluation_id
       and w.stored = s.measure
    where s.run_id in (select run_id from report_pairs)
),

baseline_scores as (
    select
        s.run_id,
        w.position,
        w.measure,
        s.query_id,
        s.value
    from scores as s
    inner join report_wanted as w
        on w.evaluation_id = s.evaluation_id
       and w.stored = s.measure
    where s.run_id in (select baseline_id from report_pairs)
),

run_side as (
    select p.pair, sc.position, sc.measure, sc.query_id, sc.value
    from report_pairs as p
    inner join run_scores as sc on sc.run_id = p.run_id
),

baseline_side as (
    select p.pair, sc.position, sc.measure, sc.query_id, sc.value
    from report_pairs as p
    inner join baseline_scores as sc on sc.run_id = p.baseline_id
),

final as (
    select
        coalesce(a.pair, b.pair) as pair,
        coalesce(a.position, b.position) as position,
        coalesce(a.measure, b.measure) as measure,
        coalesce(a.query_id, b.query_id) as query,
        a.value as run_value,
        b.value as baseline_value
    from run_side as a
    full outer join baseline_side as b
        on b.pair = a.pair
       and b.position = a.position
       and b.query_id = a.query_id
    order by pair, position, query
)

select * from final
