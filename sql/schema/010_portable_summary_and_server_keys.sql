-- Schema version 10: run_summary without the trec_summary macro, and the keys a shared
-- PostgreSQL warehouse needs with many writers.
-- Grain: run_summary one row per evaluation x run x measure (as schema 6 defined it, same columns).
-- Inputs: scores, measures (aggregate kind), runs, evaluations, qrels_sets.
-- trec_eval: the "all" line is the mean over evaluated queries, except counts (sums) and gm_map /
-- gm_bpref (the geometric mean, each value floored at 1e-5, trec_eval's MIN_GEO_MEAN); sums run in
-- query-id order, trec_eval's accumulation order, so a value has the same bytes on every run.
-- Why: PostgreSQL has no macros, and the view is read by `irw sql` users on both engines. The
-- macro itself stays in DuckDB warehouses (saved queries may call it); nothing of irw's reads it.
-- The unique key on scores is PostgreSQL's only: two writers evaluating the same runs at once
-- then store each score once. A DuckDB file has one writer at a time, and DuckDB's index would
-- refuse the delete-then-insert of `irw eval --recompute` in one transaction.
drop view if exists run_summary;

create view run_summary as
with aggregated as (
    select
        s.evaluation_id,
        s.run_id,
        s.measure,
        m.aggregate,
        count(*) as queries,
        sum(s.value order by s.query_id) as sum_value,
        exp(sum(ln(greatest(s.value, 0.00001)) order by s.query_id) / count(*)) as geo_value,
        sum(s.numerator) / nullif(sum(s.denominator), 0) as micro
    from scores as s
    inner join measures as m on m.measure = s.measure
    group by s.evaluation_id, s.run_id, s.measure, m.aggregate
)

select
    r.name as run,
    qs.name as qrels,
    a.measure,
    case a.aggregate
        when 'sum' then a.sum_value
        when 'geo' then a.geo_value
        else a.sum_value / a.queries
    end as value,
    a.micro,
    a.queries,
    e.relevance_level as level,
    e.depth,
    e.judged_only,
    e.complete,
    e.compat,
    e.norel_queries as norel,
    e.settings_key as settings,
    a.evaluation_id,
    a.run_id
from aggregated as a
inner join runs as r on r.run_id = a.run_id
inner join evaluations as e on e.evaluation_id = a.evaluation_id
inner join qrels_sets as qs on qs.qrels_set_id = e.qrels_set_id;

-- irw: postgres only (see the header)
create unique index if not exists scores_key on scores (evaluation_id, run_id, measure, query_id);

-- irw: postgres only (an evaluation reads one run's judged rows for one qrels set)
create index if not exists judged_run_rows_by_run on judged_run_rows (qrels_set_id, run_id);

-- irw: postgres only (removing, copying and --compat 10 read one run's rows)
create index if not exists run_rows_by_run on run_rows (run_id);
