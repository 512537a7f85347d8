-- describe: the columns of a data frame registered as frame_input (warehouse/ingestion/frames.py), matched
-- against the names irw knows (frames.RUN_COLUMNS, QRELS_COLUMNS).
-- Grain: one row per column. Inputs: frame_input.
-- trec_eval: none (the frame becomes a TREC file, which is then ingested and checked as any file is).
describe frame_input
