-- grade above: the first judgment of the qrels set graded above $max_grade, by query and docid
-- (byte order), or no row.
-- Grain: one row or none. Inputs: qrels; $qrels_set_id, $max_grade.
-- trec_eval: none (the limit is gdeval.pl's, not trec_eval's: evaluator.py passes max_grade 4).
-- gdeval.pl refuses a qrels file graded above 4 (its ERR's stopping chance (2^g - 1) / 16 would
-- pass 1): warehouse/evaluation/evaluator.py names this judgment when ERR is asked for on such a set.
select
    query_id,
    doc_id,
    grade
from qrels
where qrels_set_id = $qrels_set_id
  and grade > $max_grade
order by query_id, doc_id
limit 1
