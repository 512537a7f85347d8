-- Schema version 19: preference_pairs keeps the transitive preferences only of judgment groups of
-- several sub-groups; a group of one sub-group (every group of a qrels file read as preferences,
-- `irw ingest prefs --qrels-format`, trec_eval -R qrels_prefs) prefers a to b exactly when a's level
-- is higher, so its pairs follow from preference_judgments: sql/measures/prefs.sql counts them from
-- the levels, and the view preferences lists every preference. Schema 14 stored each of them, a
-- number growing with the square of a query's judged documents (731,012 rows for DL19's qrels).
-- Grain: preference_pairs one row per qrels set x query x judgment group of several sub-groups x
-- (preferred doc, other doc); the view preferences one row per qrels set x query x judgment group x
-- (preferred doc, other doc): every preference, as schema 14's preference_pairs held them.
-- Inputs: preference_pairs and preference_judgments of schema 14.
-- trec_eval (form_prefs_counts.c): within a sub-group a document of a higher rel_level is preferred
-- to one of a lower level; a judgment group's preferences are closed transitively across its
-- sub-groups (a group of one sub-group is closed already).
delete from preference_pairs
where not exists (
    select 1
    from preference_judgments as a
    inner join preference_judgments as b
        on b.qrels_set_id = a.qrels_set_id
       and b.query_id = a.query_id
       and b.jg = a.jg
       and b.jsg <> a.jsg
    where a.qrels_set_id = preference_pairs.qrels_set_id
      and a.query_id = preference_pairs.query_id
      and a.jg = preference_pairs.jg
);

create or replace view preferences as
select qrels_set_id, query_id, jg, doc_id, other_doc_id
from preference_pairs
union all
select a.qrels_set_id, a.query_id, a.jg, a.doc_id, b.doc_id as other_doc_id
from preference_judgments as a
inner join preference_judgments as b
    on b.qrels_set_id = a.qrels_set_id
   and b.query_id = a.query_id
   and b.jg = a.jg
   and b.jsg = a.jsg
   and b.rel_level < a.rel_level
where not exists (
    select 1
    from preference_judgments as other
    where other.qrels_set_id = a.qrels_set_id
      and other.query_id = a.query_id
      and other.jg = a.jg
      and other.jsg <> a.jsg
);
