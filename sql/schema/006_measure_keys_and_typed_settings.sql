-- Schema version 6: one key per stored score, and the evaluation settings as typed columns of the
-- score views.
-- Grain: scores repaired in place (one row per evaluation x run x query x measure, as before);
--        score_values one row per evaluation x run x query x measure; run_summary one row per
--        evaluation x run x measure.
-- Inputs: scores, evaluated, evaluations, measures, runs, qrels_sets.
-- trec_eval: `AP(rel=2)` is trec_eval's map at -l 2. Its scores belong to the evaluation whose
-- relevance level is 2, under the name without rel= ('AP'), which is what `evaluated` records.
-- Before this version the measure SQL wrote the name with rel= ('AP(rel=2)') while `evaluated`
-- recorded 'AP': the scores were never found, and a later `-l 2 -m AP` was read as done and came
-- back empty. Here the misnamed rows get their key (the level is already the evaluation's), and a
-- bookkeeping row whose scores cannot be found is dropped, so the next evaluation computes them.

-- 1. scores stored under a name with (rel=N): rename to the stored name, unless that name is held
--    already (then the misnamed copy is the redundant one).
delete from scores as s
where s.measure like '%(rel=%'
  and exists (
      select 1
      from scores as t
      where t.evaluation_id = s.evaluation_id
        and t.run_id = s.run_id
        and t.query_id = s.query_id
        and t.measure = regexp_replace(s.measure, '\(rel=-?[0-9]+\)', '')
  );

update scores
set measure = regexp_replace(measure, '\(rel=-?[0-9]+\)', '')
where measure like '%(rel=%';

-- 2. bookkeeping that claims scores the table does not hold: forget it, so they are recomputed.
delete from evaluated as e
where e.query_count > 0
  and not exists (
      select 1
      from scores as s
      where s.evaluation_id = e.evaluation_id
        and s.run_id = e.run_id
        and s.measure = e.measure
  );

-- 3. the views spell the settings out as typed columns, so "AP at level 2" reads
--    `where measure = 'AP' and level = 2` instead of matching the settings key as text.
create or replace view score_values as
select
    r.name as run,
    qs.name as qrels,
    s.query_id as query,
    s.measure,
    s.value,
    e.relevance_level as level,
    e.depth,
    e.judged_only,
    e.complete,
    e.compat,
    e.norel_queries as norel,
    e.settings_key as settings,
    s.numerator,
    s.denominator,
    s.evaluation_id,
    s.run_id
from scores as s
inner join runs as r on r.run_id = s.run_id
inner join evaluations as e on e.evaluation_id = s.evaluation_id
inner join qrels_sets as qs on qs.qrels_set_id = s.qrels_set_id;

-- irw: duckdb only (reads the trec_summary macro; schema 010 redefines it)
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
