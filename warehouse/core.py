"""The Python API: `warehouse.open(path)` returns a Warehouse; the CLI is a thin shell over it."""
from __future__ import annotations

import datetime as dt
import json
import os
import re
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import duckdb

from . import batch, catalog, frames, ingest
from .db import Database, default_path
from .errors import QueryError, ReadOnlyError
from .table import Table

# Statement types the read-only SQL interface runs; anything else could change the warehouse.
_READ_ONLY_STATEMENTS = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}
# Query nodes (in DuckDB's json_serialize_sql tree) and functions that write inside a SELECT.
_WRITE_NODES = {"INSERT_QUERY_NODE": "an INSERT", "UPDATE_QUERY_NODE": "an UPDATE",
                "DELETE_QUERY_NODE": "a DELETE", "MERGE_INTO_QUERY_NODE": "a MERGE"}
_WRITE_FUNCTIONS = {"nextval", "setval"}
_EXPLAIN_PREFIX = re.compile(r"^\s*explain\s+(analy[sz]e\s+)?", re.IGNORECASE)


def _json_nodes(value: Any) -> Iterator[dict]:
    """Every JSON object in a parsed json_serialize_sql tree."""
    if isinstance(value, dict):
        yield value
        for child in value.values():
            yield from _json_nodes(child)
    elif isinstance(value, list):
        for child in value:
            yield from _json_nodes(child)


class Warehouse:
    """A warehouse file: ingest qrels and runs, list them, query them with SQL."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, read_only: bool = False,
                 create: bool = True):
        self.db = Database(path if path is not None else default_path(), read_only=read_only, create=create)

    # -- lifecycle ---------------------------------------------------------------------------
    @property
    def path(self) -> str:
        return self.db.path

    @property
    def engine(self):
        """The SQLAlchemy engine, for tools that speak SQLAlchemy (pandas.read_sql, reflection)."""
        return self.db.engine

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Warehouse":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- ingest ------------------------------------------------------------------------------
    def ingest_qrels(self, path: "str | os.PathLike[str] | DataFrame", name: str | None = None, *,
                     description: str | None = None, replace: bool = False) -> ingest.IngestResult:
        """Ingests a qrels file, or a pandas / polars / Arrow frame (columns query_id, doc_id, grade,
        or ir_datasets' query_id, doc_id, relevance: warehouse/frames.py) with a name."""
        if frames.is_frame(path):
            return frames.ingest_qrels_frame(self.db, path, name, store=lambda file: ingest.ingest_qrels(
                self.db, file, name, description=description, replace=replace))
        return ingest.ingest_qrels(self.db, path, name, description=description, replace=replace)

    def ingest_run(self, path: str | os.PathLike[str], name: str | None = None, *, system: str | None = None,
                   description: str | None = None, parameters: Mapping[str, str] | None = None,
                   replace: bool = False, date: str | dt.date | None = None) -> ingest.IngestResult:
        """Ingests one run file as run name, or else as its tag. date (an ISO string, a date or a
        datetime) defaults to the ir_metadata header's date, else the file's modification time.

        path may be a pandas / polars / Arrow frame (columns query_id, doc_id, score and optionally
        rank, or PyTerrier's qid, docno, score, rank: warehouse/frames.py); it then needs a name,
        and its date defaults to now."""
        if frames.is_frame(path):
            return frames.ingest_run_frame(self.db, path, name, date=date, store=lambda file, when: batch.ingest_runs(
                self.db, [file], name=name, system=system, description=description, parameters=parameters,
                replace=replace, date=when, folders=False)[0])
        return batch.ingest_runs(self.db, [path], name=name, name_from="auto" if name else "tag", system=system,
                                 description=description, parameters=parameters, replace=replace, date=date,
                                 folders=False)[0]

    def ingest_runs(self, paths: Iterable[str | os.PathLike[str]], *, name: str | None = None, name_from: str = "auto",
                    system: str | None = None, description: str | None = None,
                    parameters: Mapping[str, str] | None = None, replace: bool = False,
                    date: str | dt.date | None = None,
                    on_step: Callable[[int, int], None] | None = None) -> list[ingest.IngestResult]:
        """Ingests run files and folders of run files, one run each (`irw ingest run`): named by
        name_from ("auto", "file" or "tag"; the rule is in warehouse/batch.py and the README), the
        whole batch checked before anything is stored (BatchError lists every problem). name names
        the run of a one-file batch."""
        return batch.ingest_runs(self.db, paths, name=name, name_from=name_from, system=system, description=description,
                                 parameters=parameters, replace=replace, date=date, on_step=on_step)

    # -- browse ------------------------------------------------------------------------------
    def runs(self) -> Table:
        return Table.from_result(self.db.run_file("catalog/runs.sql"))

    def qrels_sets(self) -> Table:
        return Table.from_result(self.db.run_file("catalog/qrels_sets.sql"))

    def qrels_name(self, name: str | None = None) -> str:
        """name, or the only stored qrels set's name when name is None (an error if there are several)."""
        return catalog.qrels_name(self.db, name)

    def remove_run(self, name: str) -> None:
        run_id = catalog.run_id(self.db, name)
        with self.db.transaction():
            catalog.delete_run(self.db, run_id)

    def remove_qrels(self, name: str) -> None:
        set_id = catalog.qrels_set_id(self.db, name)
        with self.db.transaction():
            catalog.delete_qrels_set(self.db, set_id)

    # -- evaluation --------------------------------------------------------------------------
    def evaluate(self, runs: str | Sequence[str], qrels: str, measures: Iterable[str] | str, *,
                 per_query: bool = False, settings: "Settings | None" = None, recompute: bool = False,
                 **options: Any) -> "Evaluation":
        """Evaluates stored runs against a stored qrels set; scores are stored and reused.

        options are Settings fields: level, depth, judged_only, complete, compat, norel.
        recompute=True computes the scores again and replaces the stored ones. A run and measure
        with no value raises MeasureError (ReadOnlyError on a read-only warehouse) saying why.
        """
        from .evaluate import Evaluator, Settings

        settings = Settings.resolve(settings, options)
        runs = [runs] if isinstance(runs, str) else list(runs)
        measures = [measures] if isinstance(measures, str) else list(measures)
        return Evaluator(self.db).evaluate(runs, qrels, measures, per_query=per_query, settings=settings,
                                           recompute=recompute)

    def compare(self, runs: Sequence[str] | None = None, qrels: str | None = None,
                measures: Iterable[str] | str | None = None, *, baseline: str | None = None,
                settings: "Settings | None" = None, test: str = "randomization", alpha: float = 0.05,
                correction: str = "holm", permutations: int = 10_000, seed: int = 0, **options: Any):
        """Paired significance tests as `irw compare` makes them (every stored run and the only qrels
        set by default; options are Settings fields). The result prints as a table (to_pandas() ...)
        and as a paper table: .paper_table() -> warehouse.paper.to_latex / to_markdown."""
        from . import reports
        from .evaluate import Settings
        from .stats import StatsSettings

        settings = Settings.resolve(settings, options)
        measures = [measures] if isinstance(measures, str) else (list(measures) if measures is not None else None)
        names = list(runs) if runs is not None else [row[0] for row in self.runs().rows]
        stats = StatsSettings(test=test, alpha=alpha, correction=correction, permutations=permutations, seed=seed)
        return reports.compare(self, names, self.qrels_name(qrels), measures, baseline=baseline, settings=settings,
                               stats=stats)

    # -- ad-hoc SQL --------------------------------------------------------------------------
    def sql(self, query: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> Table:
        """Runs one read-only statement (SELECT or EXPLAIN), with values bound as parameters.

        The statement type is not enough: a SELECT can hold `with x as (delete ... returning *)`,
        EXPLAIN ANALYZE runs its statement, and nextval() moves a sequence. Those are refused by
        name, and the statement runs in a transaction that is always rolled back, so nothing the
        checks miss can change the warehouse either.
        """
        try:
            statements = self.db.con.extract_statements(query)
        except duckdb.Error as exc:
            raise QueryError(str(exc).strip()) from None
        if len(statements) != 1:
            raise QueryError(f"expected one SQL statement, found {len(statements)}")
        refusal = self._write_in(statements[0])
        if refusal:
            raise ReadOnlyError(f"irw sql is read-only: {refusal} (use irw ingest / irw rm to change the warehouse)")
        try:
            with self.db.rolled_back():
                return Table.from_result(self.db.execute(query, params))
        except duckdb.Error as exc:
            raise QueryError(str(exc).strip()) from None

    def _write_in(self, statement) -> str | None:
        """Why a parsed statement could change the warehouse, or None if it only reads."""
        if statement.type == duckdb.StatementType.EXPLAIN:
            inner = _EXPLAIN_PREFIX.sub("", statement.query, count=1)
            try:
                inner_statements = self.db.con.extract_statements(inner)
            except duckdb.Error:
                return None  # the rollback still holds
            return self._write_in(inner_statements[0]) if len(inner_statements) == 1 else None
        if statement.type not in _READ_ONLY_STATEMENTS:
            return f"{statement.type.name} statements are refused"
        try:
            tree = json.loads(self.db.fetchone("select json_serialize_sql(?)", [statement.query])[0])
        except (duckdb.Error, ValueError):
            return None  # a statement DuckDB cannot serialize still runs under the rollback
        for node in _json_nodes(tree):
            if node.get("type") in _WRITE_NODES:
                return f"the query holds {_WRITE_NODES[node['type']]} statement"
            if node.get("class") == "FUNCTION" and str(node.get("function_name")).lower() in _WRITE_FUNCTIONS:
                return f"{node['function_name']}() changes a sequence"
        return None

def evaluate_files(qrels: "str | os.PathLike[str] | DataFrame",
                   runs: "str | os.PathLike[str] | DataFrame | Sequence[str | os.PathLike[str] | DataFrame] | "
                         "Mapping[str, str | os.PathLike[str] | DataFrame]",
                   measures: Iterable[str] | str, *, per_query: bool = False, settings: "Settings | None" = None,
                   **options: Any) -> "Evaluation":
    """Evaluates run files against a qrels file, keeping nothing: files to numbers in one call.

    Runs are named by their paths as given (a mapping names them; frames in a list are `run 1`,
    `run 2` ...); qrels and runs may be pandas / polars / Arrow frames. The files are validated as `irw ingest` validates them
    (a bad file raises InputFileError naming file:line), into an in-memory warehouse that keeps
    only the judged rows of each run (ingest.ingest_run's judged_rows_only), unless --compat 10
    needs every row to re-sort by double scores. options are Settings fields, as for evaluate().
    """
    from .evaluate import Settings, keeps_judged_rows_only

    settings = Settings.resolve(settings, options)
    judged_rows_only = keeps_judged_rows_only(settings, measures)
    named = _named_runs(runs)
    with Warehouse(":memory:") as wh:
        wh.ingest_qrels(qrels, "qrels")
        for name, run in named.items():
            if frames.is_frame(run):
                frames.ingest_run_frame(wh.db, run, name, store=lambda file, _date, name=name: ingest.ingest_run(
                    wh.db, file, name, judged_rows_only=judged_rows_only))
            else:
                ingest.ingest_run(wh.db, run, name, judged_rows_only=judged_rows_only)
        return wh.evaluate(list(named), "qrels", measures, per_query=per_query, settings=settings)


def _named_runs(runs) -> dict[str, Any]:
    """name -> path or frame: a mapping as given; paths named by themselves (a path given twice is
    one run); frames in a list named `run 1`, `run 2` ... by their position."""
    if isinstance(runs, Mapping):
        return {str(name): run for name, run in runs.items()}
    items = [runs] if isinstance(runs, (str, os.PathLike)) or frames.is_frame(runs) else list(runs)
    return {(f"run {i}" if frames.is_frame(run) else os.fspath(run)): run for i, run in enumerate(items, start=1)}


def open(path: str | os.PathLike[str] | None = None, *, read_only: bool = False,  # noqa: A001
         create: bool = True) -> Warehouse:
    """Opens the warehouse at path (default ./irw.duckdb or $IRW_DB), creating it unless
    read_only or create=False."""
    return Warehouse(path, read_only=read_only, create=create)
