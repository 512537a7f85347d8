-- summary_rule: the one rule that turns a measure's per-query scores into a run's summary value,
-- trec_eval's "all" line. Composed into every query that summarizes stored scores: it is never
-- run alone, and never written out elsewhere (tests/test_summary_rule.py). A query composes it by
-- naming this file as a FROM item, `from "eval/summary_rule.sql" as summarized`, which
-- warehouse/resources.py's read_sql replaces with this SELECT as a subquery: eval/summary.sql
-- (irw eval, irw trec-eval, Spark), reports/leaderboard.sql, reports/history.sql, reports/systems.sql,
-- reports/leaderboard_summaries.sql (served pages) and the run_summary view (schema 018).
-- Grain: one row per run_id x evaluation_id x measure x position of summary_scores.
-- Inputs: summary_scores, a CTE of the composing query: one row per stored per-query score it
-- summarizes, with run_id, evaluation_id, measure (a name: stored or shown), position (the
-- measure's place in the request, 0 where there is none), aggregate (measures.aggregate: 'sum',
-- 'geo' or 'mean'), query_id, value, numerator, denominator.
-- trec_eval: the mean over the evaluated queries (those with a stored score: -c's queries the run
-- lacks are stored at evaluation, 04_run_queries.sql), except counts (num_ret, num_rel,
-- num_rel_ret, num_nonrel_judged_ret, num_q), which are sums, and gm_map / gm_bpref, the
-- geometric mean with each value floored at 1e-5 (trec_eval's MIN_GEO_MEAN). Every sum runs in
-- query-id order, trec_eval's accumulation order, so a value has the same bits on every run and
-- engine (an unordered parallel sum may differ in the last bits).
-- micro: pooled counts, sum(numerator) / sum(denominator), for measures that are ratios of counts.
-- Schema 018's run_summary view holds this text as it was when the warehouse made the view: when
-- this text changes, a writable open makes the view again (warehouse/engines/duckdb.py,
-- remake_views) and a read-only open refuses, naming `irw migrate`; no migration is needed.
select
    run_id,
    evaluation_id,
    measure,
    position,
    count(*) as queries,
    case aggregate
        when 'sum' then sum(value order by query_id)
        when 'geo' then exp(sum(ln(greatest(value, 0.00001)) order by query_id) / count(*))
        else sum(value order by query_id) / count(*)
    end as value,
    sum(numerator) / nullif(sum(denominator), 0) as micro
from summary_scores
group by run_id, evaluation_id, measure, position, aggregate
