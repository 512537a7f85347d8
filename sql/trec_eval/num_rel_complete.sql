-- num_rel_complete: the relevant judgments of every judged query, as -c's num_rel counts them.
-- Grain: one row. Inputs: qrels (the one qrels set `irw trec-eval` ingested).
-- trec_eval: with -c, num_rel's summary is the relevant documents of every judged query, those of
-- queries the run does not answer included (grade > 0 is relevant at the default level).
select count(*) from qrels where grade > 0
