-- Schema version 18: the view run_summary made of the one summary rule, eval/summary_rule.sql,
-- which irw eval, the leaderboard and the history also compose, instead of a copy of the rule.
-- Grain: one row per evaluation x run x measure (as schema 10 defined it, same columns, same order).
-- Inputs: scores, measures (aggregate kind), runs, evaluations, qrels_sets.
-- trec_eval: the "all" line, by eval/summary_rule.sql (composed here by warehouse/resources.py's
-- read_sql: the mean over evaluated queries, sums for counts, the geometric mean floored at 1e-5
-- for gm_map / gm_bpref, every sum in query-id order; micro pools the counts of ratio measures).
-- The values are schema 10's, bit for bit. The rule's text is stored in the view as this migration
-- composed it; when the rule changes, a writable open makes the view again of the new text (as
-- migration 017's ranked_judged: warehouse/engines/duckdb.py, remake_views), a read-only open
-- refuses and names `irw migrate`.
drop view if exists run_summary;

create view run_summary as
with summary_scores as (
    select
        s.run_id,
        s.evaluation_id,
        s.measure,
        0 as position,
        m.aggregate,
        s.query_id,
        s.value,
        s.numerator,
        s.denominator
    from scores as s
    inner join measures as m on m.measure = s.measure
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
from "eval/summary_rule.sql" as a
inner join runs as r on r.run_id = a.run_id
inner join evaluations as e on e.evaluation_id = a.evaluation_id
inner join qrels_sets as qs on qs.qrels_set_id = e.qrels_set_id;
