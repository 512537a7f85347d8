-- Schema version 5: trec_summary, the one rule that turns a measure's per-query scores into its
-- summary value, as a macro stored with the warehouse; run_summary (schema 3) redefined on it.
-- Grain: an aggregate over the per-query scores of one run x measure (x evaluation), used inside a
-- GROUP BY that includes the measure's aggregate kind (measures.aggregate).
-- Inputs: aggregate_kind ('sum', 'geo' or 'mean'), value (one query's score), query_id.
-- trec_eval: its "all" line is the mean over evaluated queries, except counts (num_ret, num_rel,
-- num_rel_ret, num_nonrel_judged_ret, num_q), which are sums, and gm_map / gm_bpref, the geometric
-- mean with each value floored at 1e-5 (trec_eval's MIN_GEO_MEAN). Sums run in query-id order,
-- trec_eval's accumulation order, so a value has the same bytes on every run (a parallel avg() may
-- differ in the last bits).
-- Why a stored macro: sql/eval/summary.sql, the run_summary view and the report queries
-- (leaderboard, history, pr_curve) each wrote this rule out, and the reports had drifted to an
-- unordered avg(); a view cannot call a temporary macro, so it lives in the schema.
-- irw: duckdb only (PostgreSQL has no macros; schema 010 defines run_summary without it)
create macro trec_summary(aggregate_kind, value, query_id) as
    case aggregate_kind
        when 'sum' then sum(value order by query_id)
        when 'geo' then exp(sum(ln(greatest(value, 0.00001)) order by query_id) / count(*))
        else sum(value order by query_id) / count(*)
    end;

-- irw: duckdb only (reads the macro; schema 010 redefines it)
create or replace view run_summary as
with aggregated as (
    select
        s.evaluation_id,
        s.run_id,
        s.measure,
        count(*) as queries,
        trec_summary(m.aggregate, s.value, s.query_id) as value,
        sum(s.numerator) / nullif(sum(s.denominator), 0) as micro
    from scores as s
    inner join measures as m on m.measure = s.measure
    group by s.evaluation_id, s.run_id, s.measure, m.aggregate
)

select
    r.name as run,
    qs.name as qrels,
    a.measure,
    a.value,
    a.micro,
    a.queries,
    e.settings_key as settings,
    a.evaluation_id,
    a.run_id
from aggregated as a
inner join runs as r on r.run_id = a.run_id
inner join evaluations as e on e.evaluation_id = a.evaluation_id
inner join qrels_sets as qs on qs.qrels_set_id = e.qrels_set_id;
