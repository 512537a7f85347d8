-- Schema version 13: the relation of ranked, judged rows (view ranked_judged) and user measures.
-- Grain: ranked_judged one row per run x qrels set x relevance level x query the run answers and
--        the set judges x document the set judges for that query (retrieved or not);
--        user_measures one row per measure added with `irw measures add FILE`.
-- Inputs: runs, run_queries, run_rows, qrels_sets, qrels, judged_run_rows.
-- trec_eval 9.0.8: rank is the stored trec_rank (score as a 32-bit float descending, then docid
-- descending in byte order, set once at ingest: the order every built-in measure reads); a
-- document is relevant when grade >= level and judged when grade >= 0 (a negative grade is in the
-- qrels but counts as unjudged, trec_eval's convention); an unjudged retrieved document is
-- non-relevant with gain 0, so the rows are the judged documents only: those the run retrieved
-- have a rank, the others a null rank, so that R and the ideal ranking can be read from the same
-- rows. The levels held for a qrels set are each of its grades, 1 and one above its highest
-- grade; any other level selects the same documents as the next level above it that is held.
-- Depth (trec_eval -M D): a document with rank > D counts as not retrieved, and num_ret is
-- least(num_ret, D); `irw eval -M` reads the relation so (warehouse/evaluation/user_measures.py).
-- evaluated.definition_hash and measures.definition_hash: the sha256 of the user measure definition the
-- stored scores were computed with (null for the built-ins); scores of another definition are never read.
create or replace view ranked_judged as
with qrels_levels as not materialized (
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

judged_docs as not materialized (
    -- the ideal ranking: the documents graded > 0, by grade descending (docid breaks ties, which
    -- no gain-based measure can tell apart)
    select
        qrels_set_id,
        query_id,
        doc_id,
        grade,
        case
            when grade > 0 then row_number() over (
                partition by qrels_set_id, query_id order by grade desc, doc_id
            )
        end as ideal_rank
    from qrels
),

query_counts as not materialized (
    select
        j.qrels_set_id,
        l.level,
        j.query_id,
        cast(count(*) filter (where j.grade >= l.level) as bigint) as num_rel,
        cast(count(*) filter (where j.grade >= 0 and j.grade < l.level) as bigint) as num_nonrel,
        cast(count(*) filter (where j.grade >= 0) as bigint) as num_judged
    from judged_docs as j
    inner join qrels_levels as l
        on l.qrels_set_id = j.qrels_set_id
    group by j.qrels_set_id, l.level, j.query_id
),

rows_at_levels as not materialized (
    select
        rq.run_id,
        j.qrels_set_id,
        l.level,
        j.query_id,
        j.doc_id,
        jr.trec_rank as rank,
        j.grade,
        j.ideal_rank,
        rq.num_ret
    from run_queries as rq
    inner join judged_docs as j
        on j.query_id = rq.query_id
    inner join qrels_levels as l
        on l.qrels_set_id = j.qrels_set_id
    left join judged_run_rows as jr
        on jr.qrels_set_id = j.qrels_set_id
       and jr.run_id = rq.run_id
       and jr.query_id = j.query_id
       and jr.doc_id = j.doc_id
),

final as not materialized (
    select
        r.name as run,
        x.run_id,
        qs.name as qrels,
        x.qrels_set_id,
        x.level,
        x.query_id,
        x.doc_id,
        x.rank,
        rr.score,
        x.grade,
        x.grade >= x.level as is_rel,
        x.grade >= 0 as judged,
        x.rank is not null as retrieved,
        -- relevant documents at or above this rank (null when not retrieved)
        case
            when x.rank is not null then cast(sum(case when x.grade >= x.level then 1 else 0 end) over (
                partition by x.run_id, x.qrels_set_id, x.level, x.query_id
                order by x.rank rows between unbounded preceding and current row
            ) as bigint)
        end as rel_so_far,
        x.ideal_rank,
        x.num_ret,
        c.num_rel,
        c.num_nonrel,
        c.num_judged
    from rows_at_levels as x
    inner join runs as r
        on r.run_id = x.run_id
    inner join qrels_sets as qs
        on qs.qrels_set_id = x.qrels_set_id
    inner join query_counts as c
        on c.qrels_set_id = x.qrels_set_id
       and c.level = x.level
       and c.query_id = x.query_id
    left join run_rows as rr
        on rr.run_id = x.run_id
       and rr.query_id = x.query_id
       and rr.doc_id = x.doc_id
       and x.rank is not null
)

select * from final;

create table if not exists user_measures (
    name            varchar primary key,
    definition      varchar not null,
    definition_hash varchar not null,
    source_path     varchar not null,
    parameters      varchar not null,
    aggregate       varchar not null,
    description     varchar not null,
    added_at        timestamp not null default current_timestamp
);

alter table measures add column if not exists definition_hash varchar;

alter table evaluated add column if not exists definition_hash varchar;
