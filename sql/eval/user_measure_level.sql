-- user measure level: the level of the view ranked_judged that an evaluation at $level reads.
-- Grain: one row. Inputs: qrels, $qrels_set_id, $level.
-- trec_eval: relevant means grade >= level. ranked_judged holds, per qrels set, each grade, 1 and
-- one above the highest grade (schema 13); a level between them selects the same documents as
-- the next one held above it, and a level above them all the same as the highest.
with levels as (
    select grade as level
    from qrels
    where qrels_set_id = $qrels_set_id
    union
    select 1 as level
    union
    select max(grade) + 1 as level
    from qrels
    where qrels_set_id = $qrels_set_id
)

select coalesce(min(level) filter (where level >= $level), max(level)) as level
from levels
