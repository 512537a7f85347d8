-- runs listing: the stored runs for `irw runs` and Warehouse.runs().
-- Grain: one row per run, oldest ingest first: every run, or (with $chosen) those named in $names
-- (the names of a run selection: `irw runs 'BM25*' --system X --qrels Y`).
-- date is the run's date (runs.file_created_at) and date_source where it came from: '--date',
-- 'ir_metadata', 'folder name' or 'file mtime' (schema 007). parameters: what `--param k=v` gave
-- at ingest or with `irw edit run` (a map; null or empty when none was given).
-- judged_by: the stored qrels sets that judge the run (catalog/judging_rule.sql, composed here: a
-- set judging one of its queries and, where any set does, a document it retrieved), each with how
-- many of its queries it judges ("covid 50/50": 50 of the run's 50 queries), most judged first,
-- then by name; null when no stored set judges any. Read from run_queries (stored at ingest), the
-- sets' distinct queries and judged_run_rows, so no run rows are read; a run judged by no set is
-- what `--qrels X` selection leaves out.
-- Inputs: runs, run_queries, qrels, qrels_sets, judged_run_rows; $chosen and $names.
-- trec_eval: none (a listing).
with judged_queries as (
    select distinct
        qrels_set_id,
        query_id
    from qrels
),

judged_queries_of_run as (
    select
        rq.run_id,
        j.qrels_set_id,
        count(*) as queries
    from run_queries as rq
    inner join judged_queries as j on j.query_id = rq.query_id
    group by rq.run_id, j.qrels_set_id
),

judging_candidates as (
    select
        run_id,
        qrels_set_id,
        count(*) over (partition by run_id) > 1 as shared
    from judged_queries_of_run
),

judged as (
    select
        q.run_id,
        q.qrels_set_id,
        q.queries
    from judged_queries_of_run as q
    inner join "catalog/judging_rule.sql" as kept
        on kept.run_id = q.run_id and kept.qrels_set_id = q.qrels_set_id
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
