-- Schema version 24: scores stored under a key that rounded its parameter are deleted, to be
-- computed again. Before it, a key wrote Rprec_mult's multiple of R at two places (Rprec_mult.0.505
-- was stored as Rprec_mult_0.51, trec_eval's printed name) and other numbers at six significant
-- digits (IPrec@0.1234567 as IPrec@0.123457, SetF(beta=...), alpha= and beta= options alike), so a
-- later request of the other value read the first one's scores (0.4981 for trec_eval's 0.4971 on
-- DL19 BM25: a regression walk, after an upgrade that found nothing to migrate). Which parameter
-- made such a key cannot be told, so its scores are deleted with their bookkeeping, as 020 deletes
-- doubled ones: asked again, they are computed under the key the parameter now gets (every digit
-- it needs: measures.py _short_float, _two_places). Deleted: Rprec_mult keys other than its ten
-- defaults (two places hold 0.20 ... 2.00 exactly) and keys holding a decimal number of six or more
-- significant digits; only of runs whose rows the warehouse holds (runs.rows_stored), which can be
-- evaluated again.
-- Grain: irw_rounded_keys, one row per evaluation x run x measure whose key may have rounded its
-- parameter.
-- Inputs: scores, runs, evaluated, score_summaries, significance_results.
-- trec_eval: Rprec_mult.0.505 and Rprec_mult.0.51 are two measures (it prints both Rprec_mult_0.51).
-- Written to run again (a test re-applies migrations from an earlier version).

create temp table irw_rounded_keys as
with stored_keys as (
    -- each key once: the pattern is matched against a few hundred keys, not every score's row
    select distinct measure
    from scores
),

rounded as (
    select measure
    from stored_keys
    where (regexp_matches(measure, '^Rprec_mult(_avgjg)?_[0-9]+[.][0-9][0-9]$')
           and measure not in (
               'Rprec_mult_0.20', 'Rprec_mult_0.40', 'Rprec_mult_0.60', 'Rprec_mult_0.80', 'Rprec_mult_1.00',
               'Rprec_mult_1.20', 'Rprec_mult_1.40', 'Rprec_mult_1.60', 'Rprec_mult_1.80', 'Rprec_mult_2.00',
               'Rprec_mult_avgjg_0.20', 'Rprec_mult_avgjg_0.40', 'Rprec_mult_avgjg_0.60', 'Rprec_mult_avgjg_0.80',
               'Rprec_mult_avgjg_1.00', 'Rprec_mult_avgjg_1.20', 'Rprec_mult_avgjg_1.40', 'Rprec_mult_avgjg_1.60',
               'Rprec_mult_avgjg_1.80', 'Rprec_mult_avgjg_2.00'))
       -- after @ or =, a decimal number of six significant digits or more: 0.123457, 1.23457, 12345.6
       -- (one literal: PostgreSQL's ~, which this becomes, binds before a || joining two)
       or regexp_matches(
           measure,
           '[@=]-?(0[.]0*[1-9][0-9]{5}|[1-9]([.][0-9]{5}|[0-9][.][0-9]{4}|[0-9]{2}[.][0-9]{3}|[0-9]{3}[.][0-9]{2}|[0-9]{4}[.][0-9]|[0-9]{5,}[.][0-9]))'
       )
)

select distinct
    s.evaluation_id,
    s.run_id,
    s.measure
from scores as s
inner join rounded as k
    on k.measure = s.measure
inner join runs as r
    on r.run_id = s.run_id
where r.rows_stored;

delete from scores
where exists (
    select 1
    from irw_rounded_keys as k
    where k.evaluation_id = scores.evaluation_id
      and k.run_id = scores.run_id
      and k.measure = scores.measure
);

delete from evaluated
where exists (
    select 1
    from irw_rounded_keys as k
    where k.evaluation_id = evaluated.evaluation_id
      and k.run_id = evaluated.run_id
      and k.measure = evaluated.measure
);

delete from score_summaries
where exists (
    select 1
    from irw_rounded_keys as k
    where k.evaluation_id = score_summaries.evaluation_id
      and k.run_id = score_summaries.run_id
      and k.measure = score_summaries.measure
);

delete from significance_results
where exists (
    select 1
    from irw_rounded_keys as k
    where k.evaluation_id = significance_results.evaluation_id
      and k.measure = significance_results.measure
      and k.run_id in (significance_results.run_id, significance_results.baseline_id)
);

drop table irw_rounded_keys;
