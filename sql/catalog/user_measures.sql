-- user measures: the measures added with `irw measures add FILE`, by name.
-- Grain: one row per user measure.
-- Inputs: user_measures (schema 13).
-- trec_eval: none; each measure file says how it matches trec_eval's conventions.
select
    name,
    definition,
    definition_hash,
    source_path,
    parameters,
    aggregate,
    description,
    added_at
from user_measures
order by name
