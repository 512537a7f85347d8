-- stage_prefs and stage_pref_closure: a validated preference file's lines, typed, and the
-- transitive preferences of its judgment groups of several sub-groups.
-- Grain: stage_prefs one row per line; stage_pref_closure one row per query x judgment group of
-- several sub-groups x (preferred doc, other doc).
-- Inputs: stage_fields, checked by prefs_problems.sql; $qrels_format (as there).
-- trec_eval (form_prefs_counts.c): within a sub-group (jsg) every document of a higher rel_level
-- is preferred to every one of a lower level; a judgment group (jg) of several sub-groups holds
-- the transitive closure of their preferences (a > b in one sub-group and b > c in another give
-- a > c), formed here by a recursive join until no pair is new. A group of one sub-group is closed
-- already: its levels order it, and sql/measures/prefs.sql counts its preferences from them (schema
-- 19), so none of its pairs is formed. A cycle (a document preferred to itself) is refused by
-- prefs_cycles.sql. stage_qrels (query, doc, grade) feeds insert_qrels_set.sql's counts: its lines
-- are the file's.
create or replace temp table stage_prefs as
select
    line_no,
    fields[1] as query_id,
    fields[2] as jg,
    case when $qrels_format then '0' else fields[3] end as jsg,
    fields[field_count - 1] as doc_id,
    cast(fields[field_count] as double) as rel_level
from stage_fields;

create or replace temp view stage_qrels as
select
    query_id,
    doc_id,
    case when rel_level > 0 then 1 else 0 end as grade
from stage_prefs;

create or replace temp table stage_pref_closure as
with recursive several_subgroups as (
    select query_id, jg
    from stage_prefs
    group by query_id, jg
    having count(distinct jsg) > 1
),

base as (
    select distinct
        a.query_id,
        a.jg,
        a.doc_id,
        b.doc_id as other_doc_id
    from stage_prefs as a
    inner join several_subgroups as s
        on s.query_id = a.query_id
       and s.jg = a.jg
    inner join stage_prefs as b
        on b.query_id = a.query_id
       and b.jg = a.jg
       and b.jsg = a.jsg
       and b.rel_level < a.rel_level
),

closure as (
    select query_id, jg, doc_id, other_doc_id
    from base
    union
    select c.query_id, c.jg, c.doc_id, b.other_doc_id
    from closure as c
    inner join base as b
        on b.query_id = c.query_id
       and b.jg = c.jg
       and b.doc_id = c.other_doc_id
),

final as (
    select query_id, jg, doc_id, other_doc_id
    from closure
)

select * from final
