-- numbered: the frame with its row order (0-based), kept through the window functions that follow.
-- Grain: one row per frame row. Inputs: frame_input.
-- trec_eval: none (the frame becomes a TREC file, which is then ingested and checked as any file is).
create temp view frame as select *, row_number() over () - 1 as irw_row from frame_input
