-- table_rows: every row of one table of the warehouse, its columns in the catalog's order
-- (warehouse/store/export.py, _select). Composed: [columns] and [table] are quoted names from irw's
-- own catalog (checked against this irw's schema), never the user's text.
-- Grain: one row per row of the table. Inputs: the table.
-- trec_eval: none (rows are exported as they are stored).
select /* columns */ from /* table */
