-- judging_rule: the one rule that says which stored qrels set judges a run, composed into every
-- query that asks (catalog/select_runs.sql: `--qrels X` selection and irw eval's runs;
-- catalog/runs.sql: `irw runs`' judged_by; catalog/judging_qrels.sql: the systems table's columns
-- and the hints of "name the qrels set with --qrels"). A query composes it by naming this file as a
-- FROM item (warehouse/resources.py's read_sql); it is never run alone.
-- Grain: one row per (run_id, qrels_set_id) of judging_candidates that the rule keeps.
-- Inputs: judging_candidates, a CTE of the composing query: (run_id, qrels_set_id, shared), the
-- pairs whose set judges at least one of the run's queries (run_queries, stored at ingest), shared
-- true where another set judges one of them too, and then every such set is a candidate of the
-- run; judged_run_rows (the run rows each set judges, kept at ingest).
-- The rule: a set judges a run when it judges one of the run's queries and, where several sets do,
-- one of the documents the run retrieved, unless none of them judges any (every retrieved document
-- unjudged: each still judges it, and evaluate scores it as trec_eval does, 0). Query ids alone
-- mislead where two collections number their queries alike (BEIR's trec-covid and
-- webis-touche2020 both hold queries 1..49): touche's qrels judge none of a covid run's documents.
-- trec_eval: none (catalog: which set a run is read with; no measure reads it, and a run named
-- with its qrels outright is evaluated whatever this rule says).
-- Only the shared pairs read judged_run_rows (most warehouses have none): one probe a pair, by its
-- index (qrels_set_id, run_id) on PostgreSQL; on DuckDB the pairs' run ids bound the scan. At 2,000
-- runs (benchmarks/many_runs.py's) `irw runs` and `--qrels` selection take ~0.01-0.03 s as before
-- when no run is shared (one set, or 20 of disjoint queries), where probing every pair took 0.2 s;
-- when every run is shared (two sets judging the same queries) they take ~0.1 s.
with shared_pairs as (
    select
        run_id,
        qrels_set_id
    from judging_candidates
    where shared
),

judging_documents as (
    select
        s.run_id,
        s.qrels_set_id
    from shared_pairs as s
    where exists (
        select 1
        from judged_run_rows as jr
        where jr.qrels_set_id = s.qrels_set_id and jr.run_id = s.run_id
    )
)

select
    c.run_id,
    c.qrels_set_id
from judging_candidates as c
where
    not c.shared
    or exists (
        select 1
        from judging_documents as d
        where d.run_id = c.run_id and d.qrels_set_id = c.qrels_set_id
    )
    or not exists (
        select 1
        from judging_documents as d
        where d.run_id = c.run_id
    )
