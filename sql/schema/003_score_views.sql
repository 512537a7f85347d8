-- Schema version 3: two views over the stored scores for ad-hoc SQL (irw sql), by name.
-- Grain: score_values one row per evaluation x run x query x measure (the scores table with
--        run, qrels and settings spelled out); run_summary one row per evaluation x run x
--        measure.
-- Inputs: scores, evaluations, runs, qrels_sets, measures.
-- trec_eval: run_summary is trec_eval's "all" line: the mean over evaluated queries in query-id
-- order, sums for the counts and the geometric mean (values floored at 1e-5) for GMAP and
-- gm_bpref; micro pools the counts of ratio measures. It is the same rule as
-- sql/eval/summary.sql, which the CLI uses.

create view score_values as
select
    r.name as run,
    qs.name as qrels,
    s.query_id as query,
    s.measure,
    s.value,
    e.settings_key as settings,
    s.numerator,
    s.denominator,
    s.evaluation_id,
    s.run_id
from scores as s
inner join runs as r on r.run_id = s.run_id
inner join evaluations as e on e.evaluation_id = s.evaluation_id
inner join qrels_sets as qs on qs.qrels_set_id = s.qrels_set_id;

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
    e.settings_key as settings,
    a.evaluation_id,
    a.run_id
from aggregated as a
inner join runs as r on r.run_id = a.run_id
inner join evaluations as e on e.evaluation_id = a.evaluation_id
inner join qrels_sets as qs on qs.qrels_set_id = e.qrels_set_id;
