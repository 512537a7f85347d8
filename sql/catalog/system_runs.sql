-- system_runs: the stored runs of a system, for an error about a run name that is a system's (in a
-- warehouse of several collections a system has a run per collection: BM25 -> BM25.covid ...).
-- Grain: one row per run, in `irw runs` order. Inputs: runs, $system.
-- trec_eval: none.
select name from runs where system = $system order by ingested_at, name
