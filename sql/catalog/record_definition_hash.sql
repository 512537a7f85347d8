-- record definition hash: which definition of a user measure its just-stored scores come from,
-- so that scores of another definition are never read as this one's.
-- Grain: updates rows of evaluated (evaluation x run x measure) and measures (measure).
-- Inputs: $evaluation_id, $run_ids, $measure (a stored name), $definition_hash (sha256 of the file).
-- trec_eval: none.
update evaluated
set definition_hash = $definition_hash
where evaluation_id = $evaluation_id
  and run_id in (select unnest($run_ids))
  and measure = $measure;

update measures
set definition_hash = $definition_hash
where measure = $measure
