"""Moving stored rows between warehouses, DuckDB and PostgreSQL alike.

Two uses: ingest into a PostgreSQL warehouse (files are validated and ranked in a local DuckDB
staging database, then the run's or qrels set's rows are sent with COPY, warehouse/ingest.py),
and `irw copy` (a warehouse's qrels, runs and stored scores into another, either direction).

Rows travel as headerless CSV files in a private temporary folder: DuckDB writes and reads them
with COPY, PostgreSQL through psycopg's COPY FROM STDIN / TO STDOUT, ~10x faster than row-by-row
inserts. Doubles are written as their shortest round-trip text by both engines, so every score
arrives with the same bits (tests/test_postgres.py checks this). Ids are the target's: a run's
rows are written with its new run_id, so nothing is remapped on the target. The judged rows of a
run (judged_run_rows) are linked again on the target, against the qrels it holds.

Table and column names formatted into SQL here come only from the registries below.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

from . import catalog, leftovers
from .resources import read_sql
from .errors import ConflictError, NotFoundError

# table -> its columns, in the order rows travel; the first is replaced by the target's id
RUN_ROW_TABLES = {
    "run_rows": ("run_id", "query_id", "doc_id", "rank_given", "score", "trec_rank"),
    "run_queries": ("run_id", "query_id", "num_ret"),
}
QRELS_ROW_TABLES = {
    "qrels": ("qrels_set_id", "query_id", "doc_id", "grade"),
    "qrels_subtopics": ("qrels_set_id", "query_id", "subtopic", "doc_id", "grade"),
    "preference_judgments": ("qrels_set_id", "query_id", "jg", "jsg", "doc_id", "rel_level"),
    "preference_pairs": ("qrels_set_id", "query_id", "jg", "doc_id", "other_doc_id"),
}
RUN_COLUMNS = ("name", "system", "tag", "description", "parameters", "ir_metadata", "source_path", "sha256",
               "file_created_at", "date_source", "ingested_at", "row_count", "query_count", "rows_stored")
QRELS_SET_COLUMNS = ("name", "description", "source_path", "sha256", "query_count", "judgment_count", "created_at")
EVALUATION_COLUMNS = ("settings_key", "relevance_level", "depth", "judged_only", "complete", "compat",
                      "norel_queries", "created_at")
MEASURE_COLUMNS = ("measure", "trec_name", "family", "aggregate", "description")
SCORE_COLUMNS = ("evaluation_id", "qrels_set_id", "run_id", "query_id", "measure", "value", "numerator",
                 "denominator")


@contextmanager
def _folder() -> Iterator[str]:
    """A private temporary folder ($TMPDIR/irw-transfer-<pid>-<hex>); what a killed copy left is
    removed by the next one (warehouse/leftovers.py)."""
    with leftovers.temporary_folder("irw-transfer-") as folder:
        yield str(folder)


def _move_rows(source, target, table: str, columns: tuple[str, ...], where: str, params: dict,
               new_id: int, folder: str) -> None:
    """Sends source's rows of table (those `where` selects, bound to params) to target, their
    first column set to new_id."""
    path = os.path.join(folder, f"{table}.csv")
    rest = ", ".join(columns[1:])
    select = f"select $new_id as {columns[0]}, {rest} from {table} where {where}"
    export(source, select, {**params, "new_id": new_id}, path)
    load(target, table, columns, path)


def export(db, select: str, params: dict, path: str) -> None:
    """Writes a query's rows (irw's own SQL) to a headerless CSV file."""
    db.copy_out(select, params, path)


def load(db, table: str, columns: tuple[str, ...], path: str) -> None:
    """Appends a headerless CSV file's rows to a table."""
    if os.path.getsize(path) == 0:
        return  # no rows (DuckDB cannot read an empty CSV file's dialect)
    db.copy_in(table, columns, path)


def _row(db, table: str, columns: tuple[str, ...], key: str, value) -> dict | None:
    row = db.fetchone(f"select {', '.join(columns)} from {table} where {key} = ?", [value])
    return dict(zip(columns, row)) if row else None


def _insert_returning(db, table: str, values: dict, returning: str) -> int:
    names = list(values)
    return db.fetchone(f"insert into {table} ({', '.join(names)}) values ({', '.join('?' for _ in names)}) "
                       f"returning {returning}", [values[n] for n in names])[0]


# -- one run, one qrels set ---------------------------------------------------------------------

def ship_run(source, target, name: str, *, replacing: int | None = None, link_in_source: bool = False) -> int:
    """Copies run `name` (its row, run_rows, run_queries) from source to target inside the
    caller's transaction on target, replacing target's run `replacing` (a run_id) if given; links
    its judged rows against target's qrels. Returns the run's id in target.

    link_in_source (source is a staging database of our own, which may take temporary tables):
    the judged rows are joined in source against target's judgments of the run's queries and
    sent, instead of joined on target over every row just sent (_link_in_source)."""
    row = _row(source, "runs", ("run_id",) + RUN_COLUMNS, "name", name)
    if row is None:
        raise NotFoundError(f"no run named {name!r} in {source.path}")
    source_id = row.pop("run_id")
    if replacing is not None:
        catalog.delete_run(target, replacing)
    run_id = _insert_returning(target, "runs", row, "run_id")
    with _folder() as folder:
        for table, columns in RUN_ROW_TABLES.items():
            _move_rows(source, target, table, columns, "run_id = $source_id", {"source_id": source_id}, run_id,
                       folder)
        if link_in_source:
            _link_in_source(source, target, source_id, run_id, folder)
    if not link_in_source:
        target.run_file("ingest/link_judged_rows.sql", {"run_id": run_id, "qrels_set_id": None})
    return run_id


LINK_QRELS_COLUMNS = (("qrels_set_id", "integer"), ("query_id", "varchar"), ("doc_id", "varchar"))
JUDGED_ROW_COLUMNS = ("qrels_set_id", "run_id", "query_id", "doc_id", "trec_rank")


def _link_in_source(source, target, source_id: int, run_id: int, folder: str) -> None:
    """Adds to target's judged_run_rows the judged rows of run source_id (run_id on target), the
    rows link_judged_rows.sql would add there: target's judgments of the run's queries are read
    into source (a temporary table), joined with the run's rows there, and the result is sent.
    On a 7M-line run into PostgreSQL the join on the server read every row just sent (setting
    each page's hint bits on the way) for ~10 s; this reads ~15,000 judgments and sends ~10,000 rows."""
    queries = source.fetchall("select query_id from run_queries where run_id = ?", [source_id])
    target.load_rows("link_queries", [("query_id", "varchar")], queries)
    qrels_csv = os.path.join(folder, "link_qrels.csv")
    export(target, read_sql("ingest/qrels_of_link_queries.sql"), {}, qrels_csv)
    source.load_rows("link_qrels", LINK_QRELS_COLUMNS, [])
    load(source, "link_qrels", tuple(n for n, _ in LINK_QRELS_COLUMNS), qrels_csv)
    judged_csv = os.path.join(folder, "judged_run_rows.csv")
    export(source, read_sql("ingest/judged_rows_against_link_qrels.sql"), {"source_id": source_id, "new_id": run_id},
           judged_csv)
    load(target, "judged_run_rows", JUDGED_ROW_COLUMNS, judged_csv)
    for db, table in ((target, "link_queries"), (source, "link_qrels")):
        db.execute(f"drop table if exists {table}")


def send_run_rows(source, target, run_id: int) -> None:
    """Sends source's run_rows of run_id to target's run of the same id, inside the caller's
    transaction on target (ingest.store_missing_rows: rows ranked locally for a stored run)."""
    columns = RUN_ROW_TABLES["run_rows"]
    with _folder() as folder:
        _move_rows(source, target, "run_rows", columns, "run_id = $source_id", {"source_id": run_id}, run_id, folder)


def ship_qrels(source, target, name: str, *, replacing: int | None = None) -> int:
    """Copies qrels set `name` (its row, judgments, subtopic judgments) from source to target
    inside the caller's transaction on target; links the judged rows of target's runs."""
    row = _row(source, "qrels_sets", ("qrels_set_id",) + QRELS_SET_COLUMNS, "name", name)
    if row is None:
        raise NotFoundError(f"no qrels set named {name!r} in {source.path}")
    source_id = row.pop("qrels_set_id")
    if replacing is not None:
        catalog.delete_qrels_set(target, replacing)
    set_id = _insert_returning(target, "qrels_sets", row, "qrels_set_id")
    with _folder() as folder:
        for table, columns in QRELS_ROW_TABLES.items():
            _move_rows(source, target, table, columns, "qrels_set_id = $source_id", {"source_id": source_id},
                       set_id, folder)
    target.run_file("ingest/link_judged_rows.sql", {"run_id": None, "qrels_set_id": set_id})
    return set_id


# -- irw copy -----------------------------------------------------------------------------------

@dataclass
class CopyResult:
    """What `irw copy` did, name by name."""

    qrels: dict[str, str] = field(default_factory=dict)   # name -> copied / replaced / unchanged
    runs: dict[str, str] = field(default_factory=dict)
    scores: int = 0                                        # per-query score rows copied

    def lines(self) -> list[str]:
        out = [f"qrels {name}: {what}" for name, what in self.qrels.items()]
        out += [f"run {name}: {what}" for name, what in self.runs.items()]
        out.append(f"{self.scores} stored per-query scores copied")
        return out


def copy_warehouse(source, target, *, replace: bool = False, runs: list[str] | None = None) -> CopyResult:
    """Copies source's qrels sets, runs (all, or those named) and stored scores into target, in
    one transaction on target. A name that target holds with other content (another sha256) is a
    ConflictError unless replace; with the same content it is left as it is (its scores are
    still copied where target lacks them)."""
    result = CopyResult()
    qrels_names = [r[0] for r in source.fetchall("select name from qrels_sets order by qrels_set_id")]
    run_names = runs if runs is not None else [r[0] for r in source.fetchall("select name from runs order by run_id")]
    if runs is not None:
        catalog.run_ids(source, runs)  # every named run exists
    clashes = []
    for table, names, kind in (("qrels_sets", qrels_names, "qrels set"), ("runs", run_names, "run")):
        for name in names:
            mine = source.fetchone(f"select sha256 from {table} where name = ?", [name])[0]
            theirs = target.fetchone(f"select sha256 from {table} where name = ?", [name])
            if theirs is not None and theirs[0] != mine and not replace:
                clashes.append(f"{kind} {name}")
    if clashes:
        raise ConflictError(f"{target.path} already holds {', '.join(clashes)} with other content; pass --replace "
                            "to replace them (and every score computed with them), or remove them there first")
    with target.transaction():
        qrels_ids = {}
        for name in qrels_names:
            qrels_ids[name], result.qrels[name] = _copy_one(source, target, "qrels_sets", "qrels_set_id", name,
                                                            ship_qrels)
        run_ids = {}
        for name in run_names:
            run_ids[name], result.runs[name] = _copy_one(source, target, "runs", "run_id", name, ship_run)
        result.scores = _copy_scores(source, target, qrels_ids, run_ids)
        _copy_user_measures(source, target)
    return result


def _copy_user_measures(source, target) -> None:
    """The measures added with `irw measures add` that target lacks, so that their copied scores
    are read there (a name target defines otherwise keeps target's definition: the copied scores,
    stored with the other definition's hash, are then never read as its)."""
    columns = "name, definition, definition_hash, source_path, parameters, aggregate, description, added_at"
    have = {row[0] for row in target.fetchall("select name from user_measures")}
    for row in source.fetchall(f"select {columns} from user_measures order by name"):
        if row[0] not in have:
            target.execute(f"insert into user_measures ({columns}) values (?, ?, ?, ?, ?, ?, ?, ?)", list(row))


def _copy_one(source, target, table: str, key: str, name: str, ship) -> tuple[int, str]:
    mine = source.fetchone(f"select sha256 from {table} where name = ?", [name])[0]
    theirs = target.fetchone(f"select {key}, sha256 from {table} where name = ?", [name])
    if theirs is not None and theirs[1] == mine:
        return theirs[0], "unchanged"
    if source.text_holds_nul and not target.text_holds_nul:
        _refuse_nul(source, table, key, name)
    return ship(source, target, name, replacing=theirs[0] if theirs else None), ("replaced" if theirs else "copied")


def _refuse_nul(source, table: str, key: str, name: str) -> None:
    """A run or qrels set stored before irw refused NUL at ingest (docs/input-formats.md) holds text
    PostgreSQL cannot: said naming it and where, instead of the server's error mid-copy."""
    from .errors import DatabaseError
    from .escaping import shown

    rows = "run_rows" if table == "runs" else "qrels"
    found = source.fetchone(
        f"select r.query_id, r.doc_id from {rows} as r inner join {table} as t on t.{key} = r.{key} "
        "where t.name = ? and (contains(r.query_id, chr(0)) or contains(r.doc_id, chr(0))) limit 1", [name])
    kind = "run" if table == "runs" else "qrels set"
    where = f"query {shown(found[0])}, document {shown(found[1])}" if found else None
    if where is None:
        texts = source.fetchone(f"select * from {table} where name = ?", [name])
        if any(isinstance(v, str) and "\x00" in v for v in texts):
            where = "its name, tag or metadata"
    if where:
        raise DatabaseError(f"{kind} {shown(name)} in {source.path} holds NUL (U+0000) at {where}, which PostgreSQL's "
                         "text cannot hold (irw now refuses it at ingest); leave it out with --run, or remove it "
                         "and ingest it again from a file without NUL")


def _copy_scores(source, target, qrels_ids: dict[str, int], run_ids: dict[str, int]) -> int:
    """Copies the stored scores of the copied runs with the copied qrels sets that target lacks."""
    copied = 0
    evaluations = source.fetchall(
        "select e.evaluation_id, q.name from evaluations as e inner join qrels_sets as q "
        "on q.qrels_set_id = e.qrels_set_id order by e.evaluation_id")
    source_run_ids = dict(source.fetchall("select name, run_id from runs"))
    for source_eval, qrels in evaluations:
        if qrels not in qrels_ids:
            continue
        values = _row(source, "evaluations", EVALUATION_COLUMNS, "evaluation_id", source_eval)
        found = target.fetchone("select evaluation_id from evaluations where qrels_set_id = ? and settings_key = ?",
                                [qrels_ids[qrels], values["settings_key"]])
        target_eval = found[0] if found else _insert_returning(
            target, "evaluations", {"qrels_set_id": qrels_ids[qrels], **values}, "evaluation_id")
        for name, target_run in run_ids.items():
            rows = source.fetchall(
                "select measure, query_count, computed_at, definition_hash from evaluated "
                "where evaluation_id = ? and run_id = ?", [source_eval, source_run_ids[name]])
            have = {r[0] for r in target.fetchall(
                "select measure from evaluated where evaluation_id = ? and run_id = ?", [target_eval, target_run])}
            missing = [r for r in rows if r[0] not in have]
            if not missing:
                continue
            for measure, _, _, definition_hash in missing:
                described = _row(source, "measures", MEASURE_COLUMNS, "measure", measure)
                if described and not target.fetchone("select 1 from measures where measure = ?", [measure]):
                    _insert_returning(target, "measures", described, "measure")
                    if definition_hash is not None:  # a user measure's (schema 13)
                        target.execute("update measures set definition_hash = ? where measure = ?",
                                       [definition_hash, measure])
            for measure, query_count, computed_at, definition_hash in missing:
                target.execute("insert into evaluated (evaluation_id, run_id, measure, query_count, computed_at, "
                               "definition_hash) values (?, ?, ?, ?, ?, ?)",
                               [target_eval, target_run, measure, query_count, computed_at, definition_hash])
            with _folder() as folder:
                path = os.path.join(folder, "scores.csv")
                export(source, "select $evaluation_id as evaluation_id, $qrels_set_id as qrels_set_id, "
                               "$run_id as run_id, query_id, measure, value, numerator, denominator from scores "
                               "where evaluation_id = $source_eval and run_id = $source_run "
                               "and measure in (select unnest($measures))",
                       {"evaluation_id": target_eval, "qrels_set_id": qrels_ids[qrels], "run_id": target_run,
                        "source_eval": source_eval, "source_run": source_run_ids[name],
                        "measures": [m for m, *_ in missing]}, path)
                load(target, "scores", SCORE_COLUMNS, path)
                copied += target.fetchone("select count(*) from scores where evaluation_id = ? and run_id = ? "
                                          "and measure in (select unnest(?))",
                                          [target_eval, target_run, [m for m, *_ in missing]])[0]
    return copied
