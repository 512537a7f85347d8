-- norel queries: how many queries of the qrels set have no relevant document at the level, and the
-- set's lowest and highest grade (at a level above the highest, no query has one: `irw eval` says
-- so, since every measure of relevance is then 0).
-- Grain: one row. Inputs: qrels; $qrels_set_id, $level (relevant means grade >= level).
-- trec_eval: such a query is evaluated (AP 0, ...); --norel exclude leaves it out, and reports
-- say how many there are either way. A level above every grade gives trec_eval's zeros too.
with per_query as (
    select
        query_id,
        min(grade) as lowest_grade,
        max(grade) as highest_grade
    from qrels
    where qrels_set_id = $qrels_set_id
    group by query_id
)

select
    count(*) filter (where highest_grade < $level) as norel_queries,
    min(lowest_grade) as lowest_grade,
    max(highest_grade) as highest_grade
from per_query
