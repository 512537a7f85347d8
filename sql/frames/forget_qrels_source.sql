-- forget_qrels_source: a qrels set ingested from a data frame keeps no path (its temporary file is gone).
-- Grain: one row (the set). Inputs: qrels_sets, $name.
-- trec_eval: none (the frame becomes a TREC file, which is then ingested and checked as any file is).
update qrels_sets set source_path = null where name = $name
