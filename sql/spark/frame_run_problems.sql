-- spark frame run problems: what is wrong with the rows of run DataFrames, one row per problem (a
-- DataFrame has no lines: a problem names the run, query and document). Spark SQL, the rules of
-- local ingest: a query, a document and a finite score on every row, no document twice for a query.
-- Grain: one row per problem. Inputs: irw_run_input (run_id, query_id, doc_id, rank_given, score).
with row_problems as (
    select
        run_id,
        query_id,
        doc_id,
        case
            when query_id is null then 'a row has no query'
            when doc_id is null then 'a row of query ' || query_id || ' has no document'
            when score is null then 'document ' || doc_id || ' of query ' || query_id || ' has no score'
            when isnan(score) or abs(score) = cast('inf' as double)
                then 'document ' || doc_id || ' of query ' || query_id || ': score ' || score || ' is not finite'
        end as reason
    from irw_run_input
),

duplicates as (
    select
        run_id,
        query_id,
        doc_id,
        'duplicate document ' || doc_id || ' for query ' || query_id || ' (' || count(*) || ' rows)' as reason
    from irw_run_input
    where query_id is not null and doc_id is not null
    group by run_id, query_id, doc_id
    having count(*) > 1
),

final as (
    select run_id, query_id, doc_id, reason from row_problems where reason is not null
    union all
    select run_id, query_id, doc_id, reason from duplicates
)

select * from final
order by run_id, query_id, doc_id, reason
