-- runs listing: the stored runs for `irw runs` and Warehouse.runs().
-- Grain: one row per run, oldest ingest first: every run, or (with $chosen) those named in $names
-- (the names of a run selection: `irw runs 'BM25*' --system X --qrels Y`).
-- date is the run's date (runs.file_created_at) and date_source where it came from: '--date',
-- 'ir_metadata', 'folder name' or 'file mtime' (schema 007). parameters: what `--param k=v` gave
-- at ingest or with `irw edit run` (a map; null or empty when none was given).
-- judged_by: the stored qrels sets that judge at least one of the run's queries, each with how
-- many of them ("covid 50/50": 50 of the run's 50 queries), most judged first, then by name; null
-- when no stored set judges any. Read from run_queries (stored at ingest) and the sets' distinct
-- queries, so no run rows are read; a run judged by no set is what `--qrels X` selection leaves out.
-- Inputs: runs, run_queries, qrels, qrels_sets; $chosen and $names.
-- trec_eval: none (a listing).
with judged_queries as (
    select distinct
        qrels_set_id,
        query_id
    from qrels
),

judged as (
    select
        rq.run_id,
        j.qrels_set_id,
        count(*) as queries
    from run_queries as rq
    inner join judged_queries as j on j.query_id = rq.query_id
    group by rq.run_id, j.qrels_set_id
),

judged_by as (
    select
        j.run_id,
        string_agg(
            s.name || ' ' || cast(j.queries as varchar) || '/' || cast(r.query_count as varchar),
            ', ' order by j.queries desc, s.name
        ) as judged_by
    from judged as j
    inner join qrels_sets as s on s.qrels_set_id = j.qrels_set_id
    inner join runs as r on r.run_id = j.run_id
    group by j.run_id
)

select
    r.name,
    r.system,
    r.tag,
    r.row_count as rows,
    r.query_count as queries,
    r.file_created_at as date,
    r.date_source,
    r.ingested_at,
    r.description,
    r.parameters,
    b.judged_by
from runs as r
left join judged_by as b on b.run_id = r.run_id
where not $chosen or r.name in (select unnest($names))
order by r.ingested_at, r.name
