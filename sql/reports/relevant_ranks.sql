-- relevant_ranks: where each relevant document of one query sits in each run's ranking, for
-- several run pages at once (a leaderboard's run pages ask in batches: one query per page cost
-- ~10-30 ms of fixed cost each, most of a 10,000-run leaderboard's pages).
-- Grain: one row per page x run x relevant document of the page's query (grade >= $level), in
-- the order of page, then report_rank_pages.run_position, then rank (documents not retrieved
-- last), then docid.
-- Inputs: qrels, run_rows; report_rank_pages (temporary: page, run_id, run_position, query_id:
-- the runs a page shows, the run then its baseline, and the query it shows); $qrels_set_id,
-- $level, $depth (-M, a large number for all), $compat (9 or 10), $judged_only (-J).
-- trec_eval: the rank is the one the measures use. 9.0.8 orders by score as a 32-bit float
-- descending, then docid descending (the trec_rank stored at ingest); 10.0 by the double score.
-- -M keeps the first $depth documents; -J then drops unjudged (and negatively graded) documents
-- and ranks the rest from 1, as eval/03b_judged_only.sql does. rank is null when the document was
-- not retrieved within those rules; retrieved counts the run's documents for the query.
with page_queries as (
    select distinct page, query_id
    from report_rank_pages
),

judgments as (
    select p.page, q.doc_id, q.grade
    from page_queries as p
    join qrels as q
        on q.query_id = p.query_id
    where q.qrels_set_id = $qrels_set_id
),

retrieved as (
    select
        p.page,
        rr.run_id,
        rr.doc_id,
        rr.trec_rank,
        row_number() over (partition by p.page, rr.run_id order by rr.score desc, rr.doc_id desc) as double_rank
    from run_rows as rr
    join report_rank_pages as p
        on p.run_id = rr.run_id
       and p.query_id = rr.query_id
    where rr.run_id in (select run_id from report_rank_pages)
),

cut as (
    select
        page,
        run_id,
        doc_id,
        case when $compat = 9 then trec_rank else double_rank end as rank
    from retrieved
    where (case when $compat = 9 then trec_rank else double_rank end) <= $depth
),

evaluated as (
    -- the window runs after the where clause: under -J it ranks the judged documents only
    select
        c.page,
        c.run_id,
        c.doc_id,
        case
            when $judged_only then row_number() over (partition by c.page, c.run_id order by c.rank)
            else c.rank
        end as rank
    from cut as c
    left join judgments as j
        on j.page = c.page
       and j.doc_id = c.doc_id
    where not $judged_only
       or (j.grade is not null and j.grade >= 0)
),

counts as (
    select page, run_id, count(*) as retrieved
    from evaluated
    group by page, run_id
),

final as (
    select
        o.page,
        o.run_id,
        j.doc_id,
        j.grade,
        e.rank,
        coalesce(n.retrieved, 0) as retrieved
    from report_rank_pages as o
    join judgments as j
        on j.page = o.page
    left join evaluated as e
        on e.page = o.page
       and e.run_id = o.run_id
       and e.doc_id = j.doc_id
    left join counts as n
        on n.page = o.page
       and n.run_id = o.run_id
    where j.grade >= $level
    order by o.page, o.run_position, e.rank nulls last, j.doc_id
)

select * from final
