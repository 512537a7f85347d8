-- ranked_judged: the view of ranked, judged rows a measure starts from, for every stored run,
-- qrels set and relevance level (docs/measures.md, "Measures you write in SQL"), read in `irw sql`.
-- Grain: one row per run x qrels set x relevance level x query the run answers and the set judges
-- x document the set judges for that query (retrieved or not).
-- Inputs: qrels, qrels_sets, and the evaluation's ranked_judged of one qrels set and level,
-- composed by warehouse/engines/duckdb.py (ranked_judged_view) in place of the line `-- irw: the evaluation's
-- ranked_judged` from sql/eval/01_qrels.sql .. 05_judged.sql, then 08_ranked_judged.sql, with
-- $qrels_set_id and $level the held level's (p), $run_ids every stored run, no depth, no -c,
-- -J or --norel exclude: the SQL every evaluation runs, so no ranking, tie rule, relevance or count
-- of its own here.
-- trec_eval 9.0.8: as those files (rank: score as a 32-bit float descending, then docid
-- descending; relevant when grade >= level, judged when grade >= 0). The levels held for a qrels
-- set are each of its grades, 1 and one above its highest grade; any other level selects the same
-- documents as the next level above it that is held. Depth (trec_eval -M D): a document with rank
-- > D counts as not retrieved, and num_ret is least(num_ret, D). qrels, qrels_set_id and level
-- are the held level's (p), equal to the evaluation's, so that a filter on them selects the levels
-- to compute. On PostgreSQL the line `-- irw: on postgres, offset 0` is `offset 0`: the view's other
-- filters then apply to these rows instead of being pushed into the steps' joins (a filter on
-- retrieved turned the join with run_rows into a nested loop: 145 s for DL19's six runs instead of
-- 0.5 s); DuckDB's plan needs no such fence, and with it computes every level (one statement each,
-- warehouse/engines/duckdb.py ranked_judged_view).
create view ranked_judged as
with levels as (
    select distinct
        qrels_set_id,
        grade as level
    from qrels
    union
    select
        qrels_set_id,
        1 as level
    from qrels_sets
    union
    select
        qrels_set_id,
        max(grade) + 1 as level
    from qrels
    group by qrels_set_id
),

held as (
    select
        l.qrels_set_id,
        qs.name as qrels,
        l.level
    from levels as l
    inner join qrels_sets as qs
        on qs.qrels_set_id = l.qrels_set_id
)

select
    rj.run,
    rj.run_id,
    p.qrels,
    p.qrels_set_id,
    p.level,
    rj.query_id,
    rj.doc_id,
    rj.rank,
    rj.score,
    rj.grade,
    rj.is_rel,
    rj.judged,
    rj.retrieved,
    rj.rel_so_far,
    rj.ideal_rank,
    rj.num_ret,
    rj.num_rel,
    rj.num_nonrel,
    rj.num_judged
from held as p
cross join lateral (
    -- irw: the evaluation's ranked_judged
    select * from ranked_judged
    -- irw: on postgres, offset 0
) as rj
