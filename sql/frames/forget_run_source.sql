-- forget_run_source: a run just stored from a data frame keeps no path (its temporary file is gone);
-- its date is the one given ($dated: its source stays --date's), else the written file's
-- modification time (when it was ingested), which is said to come from the data frame ($data_frame).
-- Grain: one row (the run). Inputs: runs, $name, $dated, $data_frame (a runs.date_source value).
-- trec_eval: none (the frame becomes a TREC file, which is then ingested and checked as any file is).
update runs set source_path = null, date_source = case when $dated then date_source else $data_frame end
where name = $name
