-- run_tags: every stored run's tag, which trec_eval prints as runid.
-- Grain: one row per stored run. Inputs: runs.
-- trec_eval: runid is the run's tag (its sixth column, the last data line's: staged_tag).
select name, tag from runs
