-- per_query_lines: every line `irw trec-eval -q` prints before each run's summary, as one text per
-- run, formatted here instead of row by row in Python.
-- Grain: one row per run of eval_run_queries (its run_id, its text, and how many lines had no value:
-- warehouse/commands/trec_eval.py then formats them in Python, which names what is missing).
-- Inputs: trec_eval_line_formats (one row per per-query measure in printing order: position, the
-- measure's name as Evaluation.measures has it, its name padded as trec_eval prints it, kind
-- 'value', 'count' or 'relstring'), trec_eval_relstrings (run_id, measure, query_id, relstring; from
-- sql/measures/relstring.sql), eval_wanted (the stored scores of each measure, as
-- warehouse/evaluation/evaluator.py loads it), scores, eval_run_queries, $lines_for_queries_not_in_run (Settings.prints_queries_not_in_run).
-- trec_eval: each run's block as trec_eval prints it for that run alone; queries in query-id order (byte order, as `order by query_id` everywhere), within a
-- query the measures in trec_eval's order; `%-22s\t%s\t%6.4f` for values (DuckDB's printf rounds
-- the double exactly as C's and Python's do), `%ld` for counts (an integer cast to text prints
-- the same digits), relstring quoted. 9.0.8 prints no
-- line for a qrels query the run lacks (-c); 10.0 prints its zeros and an empty relstring. A NaN
-- (0/0 in trec_eval, the x86 default NaN with its sign bit set) prints as C prints it: `  -nan`.
-- Why: a 7M-line run with -m all_trec prints 770,000 lines; fetching their values as Python rows
-- and formatting them cost ~1 s, more than computing them.
with queries as (
    select
        run_id,
        query_id,
        in_run
    from eval_run_queries
    where in_run or $lines_for_queries_not_in_run
),

lines as (
    select
        q.run_id,
        q.query_id,
        f.position,
        -- joined with || (NULL when the value is missing), not one printf per line: ~15% less CPU
        f.head || chr(9) || q.query_id || chr(9) || case f.kind
            when 'relstring'
                then '''' || case when q.in_run then coalesce(r.relstring, '') else '' end || ''''
            when 'count'
                then cast(cast(trunc(s.value) as bigint) as varchar)
            -- a NaN (0/0: trec_eval's x86 build makes the default NaN, sign bit set) prints as -nan
            else case when isnan(s.value) then '  -nan' else printf('%6.4f', s.value) end
        end || chr(10) as line
    from queries as q
    cross join trec_eval_line_formats as f
    left join eval_wanted as w
        on w.measure = f.measure
    left join scores as s
        on s.evaluation_id = w.evaluation_id
       and s.measure = w.stored
       and s.run_id = q.run_id
       and s.query_id = q.query_id
    left join trec_eval_relstrings as r
        on r.run_id = q.run_id
       and r.measure = f.measure
       and r.query_id = q.query_id
),

final as (
    select
        run_id,
        coalesce(string_agg(line, '' order by query_id, position), '') as text,
        count(*) filter (where line is null) as missing
    from lines
    group by run_id
)

select * from final
