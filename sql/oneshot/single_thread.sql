-- single_thread: a one-shot database over small files runs DuckDB on one thread.
-- Grain: a setting of the in-memory connection. Inputs: none.
-- trec_eval: none (a thread count; the values are the same on any, as below).
-- Why: below oneshot.SINGLE_THREAD_BELOW bytes of input, starting DuckDB's worker threads costs
-- more than they save; the numbers are the same on any thread count.
set threads = 1
