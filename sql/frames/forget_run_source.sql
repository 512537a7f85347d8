-- forget_run_source: a run ingested from a data frame keeps no path (its temporary file is gone);
-- its date is the --date given, else the ingest's ('data frame').
-- Grain: one row (the run). Inputs: runs, $name, $dated (a date was given).
-- trec_eval: none (the frame becomes a TREC file, which is then ingested and checked as any file is).
update runs set source_path = null, date_source = case when $dated then '--date' else 'data frame' end
where name = $name
