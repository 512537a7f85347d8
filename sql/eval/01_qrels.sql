-- eval_qrels: the judgments of the qrels set under evaluation, with relevance decided once.
-- Grain: one row per query x judged doc.
-- Inputs: qrels, $qrels_set_id, $level (trec_eval -l: relevant means grade >= level).
-- trec_eval: a judged document is relevant when grade >= level; judged non-relevant when
-- 0 <= grade < level; a negative grade is judged but neither (trec_eval's "unjudged in pool").
create or replace temp table eval_qrels as
select
    query_id,
    doc_id,
    grade,
    grade >= $level as is_rel,
    grade >= 0 and grade < $level as is_nonrel
from qrels
where qrels_set_id = $qrels_set_id
