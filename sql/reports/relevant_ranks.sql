-- relevant_ranks: where each relevant document of one query sits in each run's ranking.
-- Grain: one row per run x relevant document of $query_id (grade >= $level), in the order of
-- report_runs.run_position, then rank (documents not retrieved last), then docid.
-- Inputs: qrels, run_rows; report_runs (temporary: run_id, run_position); $qrels_set_id,
-- $query_id, $level, $depth (-M, a large number for all), $compat (9 or 10), $judged_only (-J).
-- trec_eval: the rank is the one the measures use. 9.0.8 orders by score as a 32-bit float
-- descending, then docid descending (the trec_rank stored at ingest); 10.0 by the double score.
-- -M keeps the first $depth documents; -J then drops unjudged (and negatively graded) documents
-- and ranks the rest from 1, as eval/03b_judged_only.sql does. rank is null when the document was
-- not retrieved within those rules; retrieved counts the run's documents for the query.
with judgments as (
    select doc_id, grade
    from qrels
    where qrels_set_id = $qrels_set_id
      and query_id = $query_id
),

retrieved as (
    select
        rr.run_id,
        rr.doc_id,
        rr.trec_rank,
        row_number() over (partition by rr.run_id order by rr.score desc, rr.doc_id desc) as double_rank
    from run_rows as rr
    where rr.run_id in (select run_id from report_runs)
      and rr.query_id = $query_id
),

cut as (
    select
        run_id,
        doc_id,
        case when $compat = 9 then trec_rank else double_rank end as rank
    from retrieved
    where (case when $compat = 9 then trec_rank else double_rank end) <= $depth
),

evaluated as (
    -- the window runs after the where clause: under -J it ranks the judged documents only
    select
        c.run_id,
        c.doc_id,
        case
            when $judged_only then row_number() over (partition by c.run_id order by c.rank)
            else c.rank
        end as rank
    from cut as c
    left join judgments as j on j.doc_id = c.doc_id
    where not $judged_only
       or (j.grade is not null and j.grade >= 0)
),

counts as (
    select run_id, count(*) as retrieved
    from evaluated
    group by run_id
),

final as (
    select
        o.run_id,
        j.doc_id,
        j.grade,
        e.rank,
        coalesce(n.retrieved, 0) as retrieved
    from report_runs as o
    cross join judgments as j
    left join evaluated as e
        on e.run_id = o.run_id
       and e.doc_id = j.doc_id
    left join counts as n on n.run_id = o.run_id
    where j.grade >= $level
    order by o.run_position, e.rank nulls last, j.doc_id
)

select * from final
