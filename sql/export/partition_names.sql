-- partition_names: the id and name of every row of a partitioned table's owner (runs, qrels_sets),
-- whose names become the export's folder names (warehouse/store/export.py, _partition_names). Composed:
-- [owner], [id] and [name] are quoted names from export.PARTITIONED, never the user's text.
-- Grain: one row per run or qrels set, by id. Inputs: the owner table.
-- trec_eval: none (rows are exported as they are stored).
select /* id */, /* name */ from /* owner */ order by /* id */
