-- run_columns_clean: whether stage_run_columns (read by stage_run_columns.sql) holds exactly what line
-- mode would read from the file, with nothing line mode would refuse.
-- Grain: one row. Inputs: stage_run_columns, the macros of run_field_rules.sql, $strict, and
-- $may_hold_tab/_cr/_soh (false when warehouse/ingest.py found no such byte in the plain file:
-- searching 254 MB with memchr costs ~0.05 s, searching 7M rows' fields in SQL ~0.3 s each).
-- clean is false when any field is empty (a doubled space), holds a tab, CR or U+0001 (line mode
-- splits on the first two and refuses the third), when a line is a comment (first field starting
-- with '#'), a score or rank breaks run_field_rules.sql, a (query, doc) pair may repeat (equal
-- 64-bit hashes; line mode compares the strings), or the file mixes tags. Then warehouse/ingest.py
-- reads the file again in line mode, which reports each problem by line, as trec_eval would fail.
with field_check as (
    select
        count(*) as row_count,
        count(*) filter (
            where query_id is null or q0 is null or doc_id is null
               or rank_text is null or score_text is null or tag is null
               or starts_with(query_id, '#')
               or ($may_hold_tab and contains(concat(query_id, q0, doc_id, rank_text, score_text, tag), chr(9)))
               or ($may_hold_cr and contains(concat(query_id, q0, doc_id, rank_text, score_text, tag), chr(13)))
               or ($may_hold_soh and contains(concat(query_id, q0, doc_id, rank_text, score_text, tag), chr(1)))
               or run_score_problem(score_text) is not null
               or run_rank_problem(rank_text, $strict) is not null
        ) as unclean_rows,
        min(tag) as first_tag,
        max(tag) as last_tag,
        count(distinct hash(query_id, doc_id)) as distinct_pairs
    from stage_run_columns
),

final as (
    select
        row_count > 0
            and unclean_rows = 0
            and first_tag = last_tag
            and distinct_pairs = row_count as clean,
        first_tag as tag
    from field_check
)

select * from final
