-- run_field_rules: the rules a run line's score and rank must follow, as temp macros, so that the
-- line-by-line check (run_problems.sql) and the whole-file check of the column reader
-- (run_columns_clean.sql) cannot drift apart.
-- Grain: scalar macros over one field's text; NULL means the field is acceptable.
-- Inputs: none (created per connection before a run is checked).
-- trec_eval reads the score with atof, which takes the longest numeric prefix ("1_000" is 1, "x" is
-- 0): we refuse what it would misread instead of silently scoring it differently. The rank column
-- is never used for ordering; irw ingest still wants it to be an integer ($strict), the trec_eval
-- drop-in does not read it.
create or replace temp macro run_score_problem(score_text) as
    case
        when try_cast(score_text as double) is null or contains(score_text, '_')
            then 'score ' || score_text || ' is not a number'
        when not isfinite(try_cast(score_text as double))
            then 'score ' || score_text || ' is not finite'
    end;

create or replace temp macro run_rank_problem(rank_text, strict) as
    case
        when strict and (try_cast(rank_text as bigint) is null or contains(rank_text, '_')
                         or contains(rank_text, '.') or contains(rank_text, 'e') or contains(rank_text, 'E'))
            then 'rank ' || rank_text || ' is not an integer'
    end;

-- trec_eval 9.0.8 compares scores as 32-bit floats. C's double-to-float conversion makes a score
-- beyond the float32 range +-infinity (DuckDB's cast would refuse it); 3.4028235677973366e38 is
-- FLT_MAX plus half a unit, where rounding overflows.
create or replace temp macro trec_float32(score) as
    case
        when score >= 3.4028235677973366e38 then cast('inf' as float)
        when score <= -3.4028235677973366e38 then cast('-inf' as float)
        else cast(score as float)
    end;
