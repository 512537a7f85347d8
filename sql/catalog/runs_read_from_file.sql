-- runs_read_from_file: the stored runs read from a file of this name in a folder of this name
-- ($tail: '/FOLDER/FILE', the end of the resolved path each was stored with), the first stored
-- first: a changed file read again from a folder of that name is a version of the first of them
-- that answers its queries (warehouse/ingestion/batch.py, rule 4), whatever name that run was given;
-- with '/FILE', the runs read from a file of this name in any folder, whose folder (source_path)
-- says whether it was a night's (a night's folder holding only the file that changed).
-- Grain: one row per such run. Inputs: runs, $tail.
-- trec_eval: none (naming only).
select run_id, name, system, source_path
from runs
where length(source_path) > length($tail)
  and right(source_path, length($tail)) = $tail
order by run_id
