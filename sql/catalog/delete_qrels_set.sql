-- delete_qrels_set: a qrels set, its judgments and every evaluation made with it (`irw rm qrels`,
-- replacing a qrels set); the caller holds the transaction (warehouse/store/catalog.py, delete_qrels_set).
-- Grain: one statement per table holding rows keyed by the set or its evaluations.
-- Inputs: $qrels_set_id.
-- Children are deleted before parents: DuckDB has no cascading deletes (see sql/schema/001_core.sql).
-- trec_eval: none.
delete from significance_results where evaluation_id in
(select evaluation_id from evaluations where qrels_set_id = $qrels_set_id);
delete from score_summaries where evaluation_id in
(select evaluation_id from evaluations where qrels_set_id = $qrels_set_id);
delete from evaluated where evaluation_id in
(select evaluation_id from evaluations where qrels_set_id = $qrels_set_id);
delete from scores where qrels_set_id = $qrels_set_id;
delete from evaluations where qrels_set_id = $qrels_set_id;
delete from judged_run_rows where qrels_set_id = $qrels_set_id;
delete from qrels_subtopics where qrels_set_id = $qrels_set_id;
delete from preference_pairs where qrels_set_id = $qrels_set_id;
delete from preference_judgments where qrels_set_id = $qrels_set_id;
delete from qrels where qrels_set_id = $qrels_set_id;
delete from qrels_sets where qrels_set_id = $qrels_set_id;
