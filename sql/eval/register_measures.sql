-- register measures: what each stored measure name means (the summary reads its aggregate kind).
-- Grain: one row of measures per measure just computed, inserted or replaced.
-- Inputs: eval_params (measure: the stored name, trec_name, family, aggregate: 'mean', 'sum' or
-- 'geo', description), filled by warehouse/evaluation/evaluator.py for the measures computed.
-- trec_eval: none (bookkeeping; eval/summary_rule.sql applies the aggregate stored here).
insert into measures (measure, trec_name, family, aggregate, description)
select
    measure,
    trec_name,
    family,
    aggregate,
    description
from eval_params
on conflict (measure) do update
    set trec_name = excluded.trec_name,
        family = excluded.family,
        aggregate = excluded.aggregate,
        description = excluded.description
