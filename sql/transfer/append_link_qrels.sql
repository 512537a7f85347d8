-- append_link_qrels: a further chunk of the target's judgments of a run's queries (link_qrels_more)
-- added to those read before it (link_qrels), in the staging database (transfer._read_link_qrels).
-- Grain: one row per qrels set x query x judged document. Inputs: link_qrels, link_qrels_more.
-- trec_eval: none.
insert into link_qrels
select
    qrels_set_id,
    query_id,
    doc_id
from link_qrels_more;

drop table link_qrels_more
