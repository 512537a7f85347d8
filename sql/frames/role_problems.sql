-- role_problems: the first rows whose value in one role a TREC line cannot carry: missing, or
-- holding whitespace. Composed: [role] is one of frame_roles' columns (query, doc, score,
-- rank, grade).
-- Grain: one row per such row, at most 21 (20 are shown), in the frame's order.
-- Inputs: frame_roles (run_roles.sql, qrels_roles.sql).
-- trec_eval: none (the frame becomes a TREC file, which is then ingested and checked as any file is).
select irw_row, /* role */ from frame_roles where /* role */ is null
or regexp_matches(/* role */, '\s') order by irw_row limit 21
