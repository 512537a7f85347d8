-- no_join_filters: a one-shot database plans its joins without DuckDB's join filter pushdown.
-- Grain: a setting of the in-memory connection. Inputs: none.
-- trec_eval: none (a planner setting; the values are the same either way, as below).
-- Why: the filters a hash join builds for the scan of its other side cost more than they save at
-- these sizes: the measure files' `measure in (select unnest($measures))` over eval_params, the
-- first with two measures or more, took peak memory 8 MB up on DL19 (five measures: ~98 MB
-- against DuckDB's own ~68 MB start). The numbers are the same either way.
set disabled_optimizers = 'join_filter_pushdown'
