-- insert evaluation: a new evaluation of a qrels set under one settings key, with its settings
-- stored beside the scores it will hold; returns its id.
-- Grain: one row. Inputs: $qrels_set_id, $settings_key, $level (-l), $depth (-M, null for all),
-- $judged_only (-J), $complete (-c), $compat (9 or 10), $norel (include or exclude).
-- trec_eval: none (bookkeeping: the settings are stored as given; the eval files apply them).
insert into evaluations (
    qrels_set_id, settings_key, relevance_level, depth, judged_only, complete, compat, norel_queries
)
values ($qrels_set_id, $settings_key, $level, $depth, $judged_only, $complete, $compat, $norel)
returning evaluation_id
