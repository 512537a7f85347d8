-- run_top_documents: the documents a stored run ranks first for each of its queries, for batch
-- naming (as ingest/staged_queries.sql for a staged file: two runs of one collection rank some of
-- the same documents first, two collections numbering their queries alike none).
-- Grain: one row per query x document of rank 1 to $top (10). Inputs: run_rows, $run_id, $top.
-- trec_eval: trec_rank is trec_eval 9.0.8's order (score as a float32 descending, then doc_id
-- descending), set at ingest; a sample for comparing runs, no measure reads it.
select
    query_id,
    doc_id
from run_rows
where run_id = $run_id and trec_rank <= $top
