-- insert_prefs: copies a validated, staged preference file into preference_judgments and
-- preference_pairs (the transitive preferences of its judgment groups of several sub-groups,
-- schema 19), and one grade per (query, doc) into qrels, under $qrels_set_id.
-- Grain: preference_judgments one row per line; preference_pairs one row per query x judgment
-- group of several sub-groups x (preferred doc, other doc); qrels one row per (query, doc).
-- Inputs: stage_prefs, stage_pref_closure (stage_prefs.sql, checked by prefs_problems.sql and
-- prefs_cycles.sql).
-- trec_eval: the lines and stage_prefs.sql's closure are stored as staged, for the prefs
-- measures; the qrels rows are irw's, so that the set's queries are the prefs file's.
-- qrels: grade 1 when some judgment group rates the document above 0, else 0, so that a prefs set
-- has its queries and judged run rows as any qrels set (the prefs measures read the two tables here).
insert into preference_judgments (qrels_set_id, query_id, jg, jsg, doc_id, rel_level)
select $qrels_set_id, query_id, jg, jsg, doc_id, rel_level
from stage_prefs;

insert into preference_pairs (qrels_set_id, query_id, jg, doc_id, other_doc_id)
select $qrels_set_id, query_id, jg, doc_id, other_doc_id
from stage_pref_closure;

insert into qrels (qrels_set_id, query_id, doc_id, grade)
select
    $qrels_set_id as qrels_set_id,
    query_id,
    doc_id,
    max(case when rel_level > 0 then 1 else 0 end) as grade
from stage_prefs
group by query_id, doc_id
