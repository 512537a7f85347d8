-- run selection: the stored runs a command's run names, shell-style patterns and systems choose,
-- and whether a qrels set judges each (warehouse/store/catalog.py, select_runs).
-- Grain: one row per stored run x selector it matches, or per stored run once ($every: no selector
-- given, position -1); ordered by selector position, then as `irw runs` lists runs (ingest time,
-- then name).
-- Inputs: runs, run_queries, qrels, qrels_sets, judged_run_rows; run_selectors (temporary:
-- position, text, regex: the selector as given and, for a pattern, the anchored regular expression
-- of its shell-style match; null for a plain name); $every, $systems (empty: every system), $qrels_set_id (-1: none).
-- trec_eval: none (catalog: which stored runs a command chose, by name, pattern or system).
-- A selector is a run's name when a stored run has exactly that name (also when the name holds
-- * ? or [), else its pattern matches. system is the run's system, or its name when it has none.
-- judged: the qrels set judges the run (catalog/judging_rule.sql, composed here): at least one query
-- of the run (run_queries, stored at ingest: no run rows are read) is judged in the set, as
-- evaluate requires ("has no query judged in qrels"), asked per run, which stops at its first
-- judged query, instead of reading every run's queries (10,000 runs: 200,000); and the rule keeps
-- the runs the set judges a document of where another set judges one of its queries too (shared:
-- also asked per run), unless no set judges a document of it (judged_run_rows).
-- query_judged: the set judges one of the run's queries (false: the set is of another collection;
-- true where judged is false: its query ids are, but another set judges the run's documents).
with exact_names as (
    select s.position
    from run_selectors as s
    inner join runs as r on r.name = s.text
),

matched as (
    select
        s.position,
        r.run_id
    from run_selectors as s
    inner join runs as r
        on r.name = s.text
        or (
            s.regex is not null
            and s.position not in (select position from exact_names)
            and regexp_matches(r.name, s.regex)
        )

    union all

    select
        -1 as position,
        r.run_id
    from runs as r
    where $every
),

judged_queries as (
    select distinct query_id
    from qrels
    where qrels_set_id = $qrels_set_id
),

others_judged_queries as (
    select distinct
        qrels_set_id,
        query_id
    from qrels
    where qrels_set_id <> $qrels_set_id
),

query_judged as (
    select
        m.run_id,
        exists (
            select 1
            from run_queries as rq
            inner join others_judged_queries as o on o.query_id = rq.query_id
            where rq.run_id = m.run_id
        ) as shared
    from (select distinct run_id from matched) as m
    where exists (
        select 1
        from run_queries as rq
        inner join judged_queries as j on j.query_id = rq.query_id
        where rq.run_id = m.run_id
    )
),

judging_candidates as (
    select
        run_id,
        $qrels_set_id as qrels_set_id,
        shared
    from query_judged

    union all

    select distinct
        rq.run_id,
        o.qrels_set_id,
        true as shared
    from query_judged as q
    inner join run_queries as rq on rq.run_id = q.run_id
    inner join others_judged_queries as o on o.query_id = rq.query_id
    where q.shared
),

judged as (
    select kept.run_id
    from "catalog/judging_rule.sql" as kept
    where kept.qrels_set_id = $qrels_set_id
),

final as (
    select
        m.position,
        r.name as run,
        coalesce(r.system, r.name) as system,
        m.run_id in (select run_id from judged) as judged,
        m.run_id in (select run_id from query_judged) as query_judged
    from matched as m
    inner join runs as r on r.run_id = m.run_id
    order by m.position, r.ingested_at, r.name
)

select * from final
