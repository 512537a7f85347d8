"""Storing an evaluation made on Spark into a warehouse: `irw eval --engine spark --into WAREHOUSE`.

What a warehouse gets is what its reports read: the qrels set (rows and all: qrels are small),
each run's description and per-query document counts, and every per-query score, with the
evaluation's settings and the measures' descriptions. Not the run rows: hundreds of millions of
lines are why the runs were evaluated on a cluster, and bringing them to one machine would undo
that. Such a run is marked (runs.rows_stored = false, schema 11), so no measure is ever computed
from its missing rows (warehouse/evaluation/evaluator.py refuses, saying what to do) and the run page says why
it shows no relevant ranks; `irw ingest run` of the same file later adds its rows and keeps its
scores.

Everything goes through a local in-memory warehouse first (the full schema, migrated), then into
the target with warehouse/store/transfer.py's copy_warehouse, the code behind `irw copy`: one
transaction on the target, DuckDB file or PostgreSQL alike; a name the target holds with other
content is a ConflictError unless replace; the same content is left as it is and only the scores
it lacks are added.

Names and identities are the ones `irw ingest` would give the same files, so a run evaluated on
Spark and the same file ingested later are one run: runs are named by warehouse/ingestion/batch.py's rule
(the tag unless several files share it, then the file names without their shared prefix: DL19's
six `rank` files become BM25, BM25_RM3 ...); a local file's sha256 is its bytes' (as ingest hashes
them), and a file the target already holds under another name keeps that name. A file Spark reads
from elsewhere (hdfs://, s3a://) cannot be hashed here: its identity is a digest Spark computes of
its validated rows (sql/spark/run_digest.sql), written `rows:<hex>`.
"""
from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

from warehouse.ingestion import batch, files as ingest
from warehouse.store import transfer
from warehouse.engines.duckdb import MEMORY, Database
from warehouse.errors import ConflictError
from warehouse.evaluation.evaluator import runs_by_rows, tie_forms
from warehouse.engines.spark import SparkEvaluation, _local

DATE_SPARK = "evaluated on Spark"  # runs.date_source of a run whose file irw could not see


def with_report_measures(measures: Sequence[str], settings=None) -> list[str]:
    """measures, and those the reports read: their measures when none are named (so that `irw
    report run` or a served leaderboard without -m shows the run), and beside the measures they
    show judged coverage, the 11-point precision-recall curve and each measure's tie-aware bounds
    (shown for a report's primary measure; left out where the settings leave them undefined, -M
    with -J, as the reports leave them out). A run whose rows stay on the cluster gets them computed
    there, as nothing can compute them from the warehouse later."""
    from warehouse.evaluation.measures import COVERAGE_MEASURE, DEFAULT_MEASURES, parse_all, pr_measures

    named = {m.name for m in parse_all(list(measures))}  # `map` is AP: not asked of Spark twice
    shown = [*measures, *(m for m in DEFAULT_MEASURES if m not in named)]
    ties = tie_forms(parse_all(shown), settings)
    return list(dict.fromkeys([*shown, *(m.name for m in ties), COVERAGE_MEASURE, *pr_measures()]))


@dataclass
class StoredEvaluation:
    """What `--into` stored: the qrels set's and the runs' names in the target, and the copy's
    outcome name by name."""

    qrels: str
    runs: dict[str, str]                       # Spark's name -> the name in the target (what it holds decides)
    copied: transfer.CopyResult
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [*self.notes, *self.copied.lines()]


def store(evaluation: SparkEvaluation, target: Database, qrels_source: str, *, replace: bool = False,
          description: str | None = None) -> StoredEvaluation:
    """Stores what `evaluation` (warehouse.engines.spark.evaluate, runs from files) computed into target,
    the qrels having come from qrels_source (a path Spark read)."""
    spark_db = evaluation.db
    staging = Database(MEMORY)
    try:
        qrels_name = _stage_qrels(spark_db, staging, target, qrels_source)
        names, notes = _stage_runs(spark_db, staging, target, replace, description, evaluation.left_out)
        _stage_scores(spark_db, staging, qrels_name)
        copied = transfer.copy_warehouse(staging, target, replace=replace, runs=list(names.values()))
    finally:
        staging.close()
    return StoredEvaluation(qrels_name, names, copied, notes)


# -- the qrels set ------------------------------------------------------------------------------

def _is_local_file(path: str) -> bool:
    return os.path.isfile(_local(path))


def _stage_qrels(spark_db, staging: Database, target: Database, source: str) -> str:
    """The qrels set in staging, named as the target knows its bytes, else by its file name."""
    if _is_local_file(source):
        path = Path(_local(source))
        scan = ingest.scan_file(path)
        # known by its bytes, else by its text (schema 21; Spark has read it whole)
        name = (_name_of(target, "qrels_set", scan.sha256)
                or _name_of(target, "qrels_set", ingest.text_sha256(path, scan)) or ingest.display_name(path))
        # the same validation and rows as `irw ingest qrels` (Spark validated them the same way)
        ingest.ingest_qrels(staging, path, name)
        return name
    sha = "rows:" + spark_db.spark_frame("spark/qrels_digest.sql").first()["digest"]
    name = _name_of(target, "qrels_set", sha) or ingest.display_name(Path(source.rstrip("/")))
    counts = spark_db.run_file("spark_store/qrels_counts.sql").fetchone()
    with staging.transaction():
        set_id = staging.run_file("spark_store/insert_qrels_set.sql", {
            "name": name, "source_path": source, "sha256": sha, "query_count": counts[0],
            "judgment_count": counts[1]}).fetchone()[0]
        _insert_arrow(staging, spark_db.table("qrels").toArrow(), "spark_store/insert_qrels.sql",
                      {"qrels_set_id": set_id})
    return name


def _name_of(target: Database, kind: str, sha: str) -> str | None:
    """The name under which target holds these bytes, if it does (kind: qrels_set or run,
    sql/spark_store/name_of_<kind>.sql)."""
    row = target.run_file(f"spark_store/name_of_{kind}.sql", {"sha256": sha}).fetchone()
    return row[0] if row else None


def _run_content(target: Database, path: Path) -> tuple[tuple[str, str], str, str | None]:
    """((its bytes' sha256, its text's), the content sha256 it is known by, the name target holds it
    under or None) of a local run file, known as ingest knows it (warehouse/ingestion/batch.py): by
    its bytes, else by its text (a compressed file's decompressed text, schema 21; Spark has read
    it whole)."""
    scan = ingest.scan_file(path)
    shas = (scan.sha256, ingest.text_sha256(path, scan))
    for sha in dict.fromkeys(shas):
        row = target.run_file("spark_store/name_of_run.sql", {"sha256": sha}).fetchone()
        if row:
            return shas, row[1], row[0]
    return shas, shas[1], None


# -- the runs -----------------------------------------------------------------------------------

def _stage_runs(spark_db, staging: Database, target: Database, replace: bool,
                description: str | None, left_out: tuple[str, ...] = ()) -> tuple[dict[str, str], list[str]]:
    """Every run of the Spark evaluation in staging (its row and run_queries, no run rows), named
    as `irw ingest run` of the same files would name them (left_out: runs named with the others,
    not evaluated, not staged); returns Spark name -> staged name."""
    runs = spark_db.table("runs").select("run_id", "name", "tag", "source_path", "row_count", "query_count") \
        .orderBy("run_id").collect()
    remote = [r for r in runs if not _is_local_file(r.source_path)]
    digests = {}
    if remote:
        digests = {r.run_id: "rows:" + r.digest for r in spark_db.spark_frame("spark/run_digest.sql").collect()}
    queries: dict[int, set] = {}  # the rule tells a folder per system by the queries its files answer
    for row in spark_db.table("run_queries").select("run_id", "query_id").collect():
        queries.setdefault(row.run_id, set()).add(row.query_id)
    read = []
    file_shas: dict[int, tuple[str, str]] = {}  # a local file's bytes' and text's sha256 by Spark's run_id
    for run in runs:
        path = Path(_local(run.source_path))
        if run.run_id in digests:
            sha = digests[run.run_id]
            known_as = _name_of(target, "run", sha)
        else:
            file_shas[run.run_id], sha, known_as = _run_content(target, path)
        read.append((path, run.tag, frozenset(queries.get(run.run_id, ())), sha, known_as))
    files = batch.name_read_files(read, replace=replace, target=target)
    notes = []
    names = {}
    staged_ids = []  # (Spark's run_id, staging's)
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    with staging.transaction():
        for run, file in zip(runs, files):
            if run.name in left_out:
                continue
            name = file.known_as or file.name
            if file.known_as and file.known_as != file.name:
                notes.append(f"{run.source_path}: the target holds these bytes as run {file.known_as}")
            elif file.note:
                notes.append(file.note)
            local = run.run_id not in digests
            date = ingest.file_date(file.path) if local else None
            # a run the target holds these bytes as keeps what was said of it, as `irw ingest` keeps it
            # (a --replace gave it the name as its system and dropped its description and parameters)
            held = _said_of(target, file.known_as) if file.known_as else {}
            staged_ids.append((run.run_id, staging.run_file("spark_store/insert_run.sql", {
                "name": name, "system": held.get("system") or file.system or name, "tag": run.tag,
                "description": description if description is not None else held.get("description"),
                "parameters": held.get("parameters"),
                "source_path": str(file.path.resolve()) if local else run.source_path,
                "sha256": file_shas[run.run_id][0] if local else file.sha,
                "text_sha256": file_shas[run.run_id][1] if local else None,
                "file_created_at": date.value if date else now, "date_source": date.source if date else DATE_SPARK,
                "row_count": run.row_count, "query_count": run.query_count}).fetchone()[0]))
            names[run.name] = name
        staging.load_rows("spark_run_ids", [("spark_id", "integer"), ("run_id", "integer")], staged_ids)
        for rows in _by_runs(spark_db.table("run_queries"), {r.run_id: r.query_count for r in runs}):
            _insert_arrow(staging, rows, "spark_store/insert_run_queries.sql", {})
    return names, notes


def _said_of(target: Database, name: str) -> dict[str, Any]:
    """The system, description and parameters of the run target holds under name."""
    row = transfer._row(target, "run.sql", {"name": name})
    return {key: row[key] for key in ("system", "description", "parameters")}


# -- the scores ---------------------------------------------------------------------------------

def _stage_scores(spark_db, staging: Database, qrels_name: str) -> None:
    """Spark's evaluations, measures, evaluated rows and per-query scores in staging, under
    staging's ids (spark_run_ids, from _stage_runs)."""
    qrels_id = staging.run_file("spark_store/qrels_set_id.sql", {"name": qrels_name}).fetchone()[0]
    with staging.transaction():
        measures = spark_db.run_file("spark_store/measures.sql")
        columns = [column[0] for column in measures.description]
        for row in measures.fetchall():
            staging.run_file("spark_store/insert_measure.sql", dict(zip(columns, row)))
        evaluation_ids = []
        evaluations = spark_db.run_file("spark_store/evaluations.sql")
        columns = [column[0] for column in evaluations.description]
        for row in evaluations.fetchall():
            values = dict(zip(columns, row))
            evaluation_ids.append((row[0], staging.run_file("transfer/insert_evaluation.sql", {
                **values, "qrels_set_id": qrels_id}).fetchone()[0]))
        staging.load_rows("spark_evaluation_ids", [("spark_id", "integer"), ("evaluation_id", "integer")],
                          evaluation_ids)
        evaluated = spark_db.table("evaluated").toArrow()  # runs x measures: small
        _insert_arrow(staging, evaluated, "spark_store/insert_evaluated.sql", {})
        score_rows: dict[int, int] = {}  # Spark's run_id -> its per-query scores
        for run_id, query_count in zip(evaluated.column("run_id").to_pylist(),
                                       evaluated.column("query_count").to_pylist()):
            score_rows[run_id] = score_rows.get(run_id, 0) + query_count
        for rows in _by_runs(spark_db.table("scores"), score_rows):
            _insert_arrow(staging, rows, "spark_store/insert_scores.sql", {"qrels_set_id": qrels_id})


# Rows of Spark's tables reach the driver a batch of runs at a time: one Spark job per batch, not
# per run (a sweep of thousands of runs would be thousands of jobs), and at most about this many
# rows held at once (a run larger than that is a batch of its own)
ROWS_PER_BATCH = 2_000_000


def _by_runs(frame, rows_per_run: dict[int, int]) -> Iterator[Any]:
    """frame's rows (a table with a run_id column) as Arrow tables, a batch of runs each."""
    for batch in runs_by_rows(rows_per_run.items(), ROWS_PER_BATCH):
        yield frame.where(frame["run_id"].isin([int(r) for r in batch])).toArrow()


def _insert_arrow(db: Database, rows: Any, insert: str, params: dict[str, Any]) -> None:
    """Runs `insert` (a file under sql/) reading an Arrow table of Spark's rows as `incoming`."""
    with db.registered("incoming", rows):
        db.run_file(insert, params)
