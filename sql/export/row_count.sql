-- row_count: how many rows a table holds (an export's partitions must add up to it). Composed:
-- [table] is a quoted name from irw's own catalog.
-- Grain: one row. Inputs: the table.
-- trec_eval: none (rows are exported as they are stored).
select count(*) from /* table */
