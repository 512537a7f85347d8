-- delete scores: the stored per-query values about to be computed again (recompute, or a
-- measure some of whose runs were stored), so each (run, query, measure) is stored once.
-- Grain: deletes rows of scores. Inputs: $evaluation_id, $run_ids, $measures (stored names).
-- trec_eval: none (bookkeeping; the measure files compute the values again).
delete from scores
where evaluation_id = $evaluation_id
  and run_id in (select unnest($run_ids))
  and measure in (select unnest($measures))
