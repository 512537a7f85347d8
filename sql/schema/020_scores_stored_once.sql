-- Schema version 20: scores computed twice are deleted, to be computed again. Before it, one
-- evaluation asked for one stored score by two names (AP and AP(rel=2) at level 2, P@10 and
-- P(rel=1)@10 at level 1: stored_name() is the same) computed it with the measure listed twice:
-- each query's value came out doubled (AP 0.4198 for trec_eval's 0.2099 on DL19 BM25's query
-- 1037798 at -l 2; P@10 above 1) and was stored twice. The evaluator now computes one measure per
-- stored name. What the doubled values were cannot be told from them for every measure (a ratio of
-- doubled sums is not doubled), so such a score is deleted with its bookkeeping, as 012 deletes a
-- key it cannot rename: asked again, it is computed again.
-- Grain: irw_doubled_scores, one row per evaluation x run x measure holding some query's value twice.
-- Inputs: scores, evaluated, score_summaries, significance_results. On PostgreSQL the scores' unique
-- key (010) refused the second row: nothing is doubled there.
-- trec_eval: one value per query and measure, as it prints them.
-- Written to run again (a test re-applies migrations from an earlier version).
create temp table irw_doubled_scores as
select distinct
    evaluation_id,
    run_id,
    measure
from scores
group by evaluation_id, run_id, query_id, measure
having count(*) > 1;

delete from scores
where exists (
    select 1
    from irw_doubled_scores as d
    where d.evaluation_id = scores.evaluation_id
      and d.run_id = scores.run_id
      and d.measure = scores.measure
);

delete from evaluated
where exists (
    select 1
    from irw_doubled_scores as d
    where d.evaluation_id = evaluated.evaluation_id
      and d.run_id = evaluated.run_id
      and d.measure = evaluated.measure
);

delete from score_summaries
where exists (
    select 1
    from irw_doubled_scores as d
    where d.evaluation_id = score_summaries.evaluation_id
      and d.run_id = score_summaries.run_id
      and d.measure = score_summaries.measure
);

delete from significance_results
where exists (
    select 1
    from irw_doubled_scores as d
    where d.evaluation_id = significance_results.evaluation_id
      and d.measure = significance_results.measure
      and d.run_id in (significance_results.run_id, significance_results.baseline_id)
);

drop table irw_doubled_scores;
