-- insert_run_rows: copies a validated staged run into run_rows under $run_id, ranked once.
-- Grain: one row per (query, doc) of the file. Inputs: stage_fields (already checked by
-- run_problems.sql, so every cast here succeeds), $run_id.
-- trec_eval: trec_rank is trec_eval 9.0.8's order: score compared as a 32-bit float, descending,
-- ties broken by docid descending in byte order (DuckDB compares VARCHAR by bytes). A score beyond
-- the float32 range becomes +-infinity, as C's double-to-float conversion makes it (DuckDB's cast
-- would refuse it); 3.4028235677973366e38 is FLT_MAX plus half a unit, where rounding overflows.
-- Storing it
-- here means evaluations never sort run rows again; --compat 10 (double scores) re-sorts.
insert into run_rows (run_id, query_id, doc_id, rank_given, score, trec_rank)
with typed as (
    select
        fields[1] as query_id,
        fields[3] as doc_id,
        try_cast(fields[4] as bigint) as rank_given,
        cast(fields[5] as double) as score
    from stage_fields
),

final as (
    select
        $run_id as run_id,
        query_id,
        doc_id,
        rank_given,
        score,
        row_number() over (
            partition by query_id
            order by
                case
                    when score >= 3.4028235677973366e38 then cast('inf' as float)
                    when score <= -3.4028235677973366e38 then cast('-inf' as float)
                    else cast(score as float)
                end desc,
                doc_id desc
        ) as trec_rank
    from typed
)

select * from final
