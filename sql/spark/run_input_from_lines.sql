-- spark run input from lines: the rows of validated run lines (run_problems.sql found none), typed,
-- under the run_id of their file. Spark SQL.
-- Grain: one row per run x query x doc. Inputs: irw_lines, irw_run_files (file, run_id).
-- trec_eval: none (the checked lines, typed; spark/run_rows.sql gives them trec_eval's ranks).
-- The rank column is kept as given (null where it is not an integer, which trec_eval's rules allow);
-- it is never used for order.
select /*+ BROADCAST(f) */
    f.run_id,
    l.fields[0] as query_id,
    l.fields[2] as doc_id,
    try_cast(l.fields[3] as bigint) as rank_given,
    cast(l.fields[4] as double) as score
from irw_lines as l
inner join irw_run_files as f
    on f.file = l.file
