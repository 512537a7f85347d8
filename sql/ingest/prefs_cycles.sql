-- prefs_cycles: the preferences of a judgment group that contradict each other.
-- Grain: one row per (line, reason): one per judgment group whose sub-groups form a cycle, at the
-- first line rating a document of the cycle, naming the documents preferred to themselves.
-- Inputs: stage_pref_closure and stage_prefs (stage_prefs.sql).
-- trec_eval (form_prefs_counts.c, add_transitives): a judgment group is one user's consistent
-- preferences; a > b in one sub-group and b > a (through any chain) in another is an
-- inconsistency, on which trec_eval aborts ("Pref inconsistency found"). irw refuses the file.
with in_cycles as (
    select p.query_id, p.jg, p.doc_id, min(s.line_no) as line_no
    from stage_pref_closure as p
    inner join stage_prefs as s
        on s.query_id = p.query_id
       and s.jg = p.jg
       and s.doc_id = p.doc_id
    where p.doc_id = p.other_doc_id
    group by p.query_id, p.jg, p.doc_id
),

cycles as (
    select
        query_id,
        jg,
        min(line_no) as line_no,
        string_agg(doc_id, ', ' order by line_no, doc_id) as docs
    from in_cycles
    group by query_id, jg
),

final as (
    select
        line_no,
        'judgment group ' || jg || ' of query ' || query_id || ' prefers documents to themselves ('
            || docs || '): its sub-groups form a cycle of preferences (a > b in one, b > a through the '
            || 'others); split the contradicting sub-groups into judgment groups of their own' as reason
    from cycles
)

select line_no, reason
from final
order by line_no, reason
