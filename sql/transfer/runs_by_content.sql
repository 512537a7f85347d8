-- runs_by_content: the stored runs other than $name holding this content, oldest first: $sha256 is
-- a run's content (run_content.sql's content_sha256), matched against both of a stored run's
-- sha256s. `irw copy` says when target holds a run's rows under another name the source does not
-- (warehouse/store/transfer.py _note_held_as).
-- Grain: one row per such run. Inputs: runs, $sha256, $name.
-- trec_eval: none.
select name
from runs
where $sha256 <> '' and (sha256 = $sha256 or text_sha256 = $sha256) and name <> $name
order by run_id
