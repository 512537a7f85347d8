-- norel queries: how many queries of the qrels set have no relevant document at the level.
-- Grain: one row. Inputs: qrels; $qrels_set_id, $level (relevant means grade >= level).
-- trec_eval: such a query is evaluated (AP 0, ...); --norel exclude leaves it out, and reports
-- say how many there are either way.
with norel as (
    select query_id
    from qrels
    where qrels_set_id = $qrels_set_id
    group by query_id
    having max(grade) < $level
)

select count(*) as norel_queries
from norel
