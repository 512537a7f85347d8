-- preference_count: how many preference judgments a qrels set holds (an evaluation of the prefs
-- measures on a qrels set without them is refused with what to ingest).
-- Grain: one row. Inputs: preference_judgments, $qrels_set_id.
-- trec_eval: -R prefs / qrels_prefs read a prefs file; none there is an error.
select count(*) from preference_judgments where qrels_set_id = $qrels_set_id
