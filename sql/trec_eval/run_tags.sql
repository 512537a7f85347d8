-- run_tags: every stored run's tag, which trec_eval prints as runid.
-- Grain: one row per stored run. Inputs: runs.
-- trec_eval: runid is the run's tag (its sixth column, the first line's).
select name, tag from runs
