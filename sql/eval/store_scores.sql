-- store scores: one measure family's per-query values, stored under the evaluation.
-- Grain: one row of scores per run x evaluated query x measure of the family.
-- Inputs: family_scores (run_id, query_id, measure, value, numerator, denominator), which
-- warehouse/evaluation/evaluator.py (store_scores_sql) replaces with the family file's SELECT
-- (sql/measures/*.sql) as a subquery of its own, so the family's WITH clauses stay inside it;
-- $evaluation_id, $qrels_set_id.
-- trec_eval: none (the family file's values are stored as it computed them).
insert into scores (evaluation_id, qrels_set_id, run_id, query_id, measure, value, numerator, denominator)
select
    cast($evaluation_id as integer) as evaluation_id,
    cast($qrels_set_id as integer) as qrels_set_id,
    f.run_id,
    f.query_id,
    f.measure,
    f.value,
    f.numerator,
    f.denominator
from family_scores as f
