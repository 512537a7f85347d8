-- partition_rows: the rows of one table that one run or qrels set owns ($partition: its id), as
-- table_rows.sql; [column] is the table's id column (export.PARTITIONED).
-- Grain: one row per row of the table with that id. Inputs: the table, $partition.
-- trec_eval: none (rows are exported as they are stored).
select /* columns */ from /* table */ where /* column */ = $partition
