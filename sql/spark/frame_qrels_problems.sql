-- spark frame qrels problems: what is wrong with the rows of a qrels DataFrame, one row per problem
-- (naming the query and document: a DataFrame has no lines). Spark SQL, the rules of local
-- ingest: a query, a document and an integer grade on every row, no document judged twice.
-- Grain: one row per problem. Inputs: irw_qrels_input (qrels_set_id, query_id, doc_id, grade as
-- given).
with row_problems as (
    select
        query_id,
        doc_id,
        case
            when query_id is null then 'a row has no query'
            when doc_id is null then 'a row of query ' || query_id || ' has no document'
            when grade is null then 'document ' || doc_id || ' of query ' || query_id || ' has no grade'
            when try_cast(cast(grade as string) as int) is null
                then 'document ' || doc_id || ' of query ' || query_id || ': grade ' || grade || ' is not an integer'
        end as reason
    from irw_qrels_input
),

duplicates as (
    select
        query_id,
        doc_id,
        'duplicate judgment of document ' || doc_id || ' for query ' || query_id || ' (' || count(*) || ' rows)' as reason
    from irw_qrels_input
    where query_id is not null and doc_id is not null
    group by query_id, doc_id
    having count(*) > 1
),

final as (
    select query_id, doc_id, reason from row_problems where reason is not null
    union all
    select query_id, doc_id, reason from duplicates
)

select * from final
order by query_id, doc_id, reason
