-- run_field_rules: the rules a run line's score and rank must follow, as temp macros, so that the
-- line-by-line check (run_problems.sql) and the whole-file check of the column reader
-- (stage_run_columns.sql, columns_clean.sql) cannot drift apart.
-- Grain: scalar macros over one field's text; NULL means the field is acceptable.
-- Inputs: none (created per connection before a run is checked).
-- trec_eval reads the score with atof, which takes the longest numeric prefix ("1_000" is 1, "x" is
-- 0): we refuse what it would misread instead of silently scoring it differently. A score is a
-- decimal number as docs/input-formats.md writes it (sign, digits with at most one point, an
-- exponent) and finite; a rank is an optional sign and digits. DuckDB's casts alone are more lenient: they take
-- surrounding whitespace (VT and FF included), '_' digit separators, a '+-' sign, and 0x / 0b
-- integers, which is why the grammar is spelled out here. The rank column is never used for
-- ordering; irw ingest still wants it to be an integer ($strict), the trec_eval drop-in does not
-- read it.
create or replace temp macro run_score_problem(score_text) as
    case
        when regexp_full_match(score_text, '[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?')
            then case
                when not coalesce(isfinite(try_cast(score_text as double)), false) then 'score ' || score_text || ' is not finite'
            end
        when regexp_full_match(lower(score_text), '[+-]?(inf|infinity|nan)')
            then 'score ' || score_text || ' is not finite'
        else 'score ' || score_text || ' is not a number'
    end;

create or replace temp macro run_rank_problem(rank_text, strict) as
    case
        when not strict then null
        when not regexp_full_match(rank_text, '[+-]?[0-9]+') then 'rank ' || rank_text || ' is not an integer'
        when try_cast(rank_text as bigint) is null then 'rank ' || rank_text || ' is out of range'
    end;

-- The column reader's form of the same rules, for 7M fields at a time (a regular expression per
-- field cost ~0.3 s more there). True exactly when the macro above returns NULL, for a field
-- that holds no whitespace: the column reader's fields hold no space (its delimiter), and a file
-- holding tab, CR, VT or FF has those ruled out line by line in stage_run_columns.sql. Of the
-- leniency above, only '_', the '+-' sign and inf/nan are then left for the score (nan and inf
-- fail isfinite), and a rank that prints back as itself is an integer.
create or replace temp macro run_score_ok(score_text) as
    coalesce(isfinite(try_cast(score_text as double)), false)
    and not contains(score_text, '_')
    and not starts_with(score_text, '+-');

create or replace temp macro run_rank_ok(rank_text, strict) as
    case
        when cast(try_cast(rank_text as bigint) as varchar) = rank_text then true
        else run_rank_problem(rank_text, strict) is null
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
