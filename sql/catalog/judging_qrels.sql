-- judging qrels: how many of the runs a command chose each stored qrels set judges, and which, for
-- the hint of "name the qrels set with --qrels" when the warehouse holds several
-- (warehouse/store/catalog.py, qrels_name).
-- Grain: one row per stored qrels set that judges at least one chosen run: its name, how many of
-- the chosen runs it judges and their names (by name); most runs judged first, then by name.
-- Inputs: run_selectors (temporary, loaded by qrels_name: the chosen runs' exact names in text),
-- runs, run_queries, qrels, qrels_sets, judged_run_rows (through the rule).
-- trec_eval: none (catalog: it names the qrels sets for a hint; no measure reads it).
-- Which set judges a run is catalog/judging_rule.sql, composed here, as `irw runs` (judged_by) and
-- `--qrels X` selection read it: the candidates are the sets judging one of the run's queries
-- (run_queries, stored at ingest: no run rows are read), and the rule keeps those judging a
-- document it retrieved (where any does).
with chosen as (
    select r.run_id
    from run_selectors as s
    inner join runs as r on r.name = s.text
),

judged_queries as (
    select distinct
        qrels_set_id,
        query_id
    from qrels
),

judging_pairs as (
    select distinct
        j.qrels_set_id,
        rq.run_id
    from run_queries as rq
    inner join judged_queries as j on j.query_id = rq.query_id
    where rq.run_id in (select run_id from chosen)
),

judging_candidates as (
    select
        run_id,
        qrels_set_id,
        count(*) over (partition by run_id) > 1 as shared
    from judging_pairs
),

judged as (
    select
        kept.run_id,
        kept.qrels_set_id
    from "catalog/judging_rule.sql" as kept
)

select
    q.name,
    count(*) as runs,
    array_agg(r.name order by r.name) as run_names
from judged as j
inner join qrels_sets as q on q.qrels_set_id = j.qrels_set_id
inner join runs as r on r.run_id = j.run_id
group by q.name
order by runs desc, q.name
