-- ranked_judged of one evaluation: the relation a user measure reads (warehouse/evaluation/user_measures.py),
-- made from the evaluation's own rows, so that a user measure and the built-ins start from one
-- ranking and one judging (sql/eval/01_qrels.sql .. 05_judged.sql), with the columns of the view
-- ranked_judged (sql/schema/013_ranked_judged_and_user_measures.sql).
-- Grain: one row per evaluated run x query the run answers (in the evaluation's query set) x
-- document the qrels set judges for that query, retrieved or not.
-- Inputs: eval_qrels (01), eval_run_queries (04), eval_judged (05; within -M), runs, qrels_sets,
-- run_rows (the score), $qrels_set_id, $level, $run_ids.
-- trec_eval 9.0.8: rank is eval_judged's (the stored trec_rank within the depth, -M): a judged
-- document below the depth has a null rank, as one never retrieved; num_ret is the evaluation's
-- (least(num_ret, -M)); num_rel (R) and num_nonrel at the evaluation's level. A query -c adds,
-- which the run lacks, has no row (the run answers it with nothing; sql/eval/store_user_scores.sql
-- scores it 0). ideal_rank orders the documents graded > 0 by grade descending (docid breaks ties,
-- which no gain-based measure can tell apart).
with ideal as (
    select
        query_id,
        doc_id,
        case
            when grade > 0 then row_number() over (partition by query_id order by grade desc, doc_id)
        end as ideal_rank
    from eval_qrels
),

final as (
    select
        r.name as run,
        q.run_id,
        qs.name as qrels,
        qs.qrels_set_id,
        cast($level as integer) as level,
        q.query_id,
        j.doc_id,
        k.rank,
        rr.score,
        j.grade,
        j.is_rel,
        j.grade >= 0 as judged,
        k.rank is not null as retrieved,
        cast(k.rel_so_far as bigint) as rel_so_far,
        i.ideal_rank,
        q.num_ret,
        q.num_rel,
        q.num_nonrel,
        q.num_judged
    from eval_run_queries as q
    inner join eval_qrels as j
        on j.query_id = q.query_id
    inner join ideal as i
        on i.query_id = j.query_id
       and i.doc_id = j.doc_id
    inner join runs as r
        on r.run_id = q.run_id
    inner join qrels_sets as qs
        on qs.qrels_set_id = $qrels_set_id
    left join eval_judged as k
        on k.run_id = q.run_id
       and k.query_id = j.query_id
       and k.doc_id = j.doc_id
    left join run_rows as rr
        on rr.run_id = q.run_id
       and rr.query_id = j.query_id
       and rr.doc_id = j.doc_id
       and k.rank is not null
       -- said again for the planner: the evaluated runs' rows only, not every stored run's
       and rr.run_id in (select unnest($run_ids))
    where q.in_run
)

select * from final
