"""The Python API: `warehouse.open(path)` returns a Warehouse; the CLI is a thin shell over it."""
from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import numbers
import os
from pathlib import Path
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Sequence, TypeAlias

from warehouse.ingestion import batch, frames, files as ingest
from warehouse.store import catalog, transfer
from warehouse.engines.duckdb import default_path
from warehouse.engines import open_database, same_warehouse, upgrade_said
from warehouse.errors import NotFoundError, ReadOnlyError, UsageError, WarehouseNotFound
from warehouse.formats.cells import listed_name, said_date, said_name, said_value
from warehouse.formats.table import Table
# imported for the annotations, so that typing.get_type_hints resolves them (the API's callers
# need the evaluator anyway); Spark's module stays unimported until evaluate_on_spark runs
from warehouse.evaluation.evaluator import Evaluation
from warehouse.evaluation.settings import Settings
from warehouse.store.export import ExportResult

if TYPE_CHECKING:
    from warehouse.engines.spark_store import StoredEvaluation

# A pandas or polars DataFrame, or an Arrow Table / RecordBatch (frames.is_frame). Any, not their
# union: naming their classes would import pandas, polars and pyarrow, each an optional extra.
DataFrame: TypeAlias = Any


class Warehouse:
    """A warehouse file: ingest qrels and runs, list them, query them with SQL."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, read_only: bool = False,
                 create: bool = True, sandboxed: bool = False):
        """Opens (or creates) the warehouse at path; see warehouse.open."""
        self.db = open_database(_home(path if path is not None else default_path()), read_only=read_only,
                                create=create, sandboxed=sandboxed)
        from warehouse.evaluation import user_measures

        user_measures.register(self.db)  # the measures added to it (irw measures add) parse from now on

    # -- lifecycle ---------------------------------------------------------------------------
    @property
    def path(self) -> str:
        return self.db.path

    @property
    def engine(self):
        """The SQLAlchemy engine, for tools that speak SQLAlchemy (pandas.read_sql, reflection).

        It is a FULL-ACCESS engine, not a read-only one: SQL through it can change or delete
        anything in the warehouse, read and write any file this process can, ATTACH other
        databases and install extensions. Never pass it SQL you did not write; `sql()` is the
        read-only way in."""
        return self.db.engine

    def close(self) -> None:
        self.db.close()

    def __repr__(self) -> str:
        from warehouse.engines import shown

        return f"<Warehouse {shown(self.path)}{' (read-only)' if self.db.read_only else ''}>"

    def __enter__(self) -> "Warehouse":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        """Closes the warehouse. When the block failed: a warehouse file this open created and
        nothing was stored in is deleted again, and a DuckDB error (a damaged file, a full disk)
        is raised as the IrwError that says so."""
        if exc_type is None:
            self.close()
            return
        self.db.discard()
        said = self.db.error_of(exc)
        if said is not None:
            raise said from exc

    # -- ingest ------------------------------------------------------------------------------
    def _require_writable(self, action: str) -> None:
        """A write on a warehouse opened read-only is refused by irw, before DuckDB would refuse it."""
        if self.db.read_only:
            reason = self.db.read_only_reason
            if reason:  # a server warehouse opened by a reader's role
                raise ReadOnlyError(f"cannot {action}: the warehouse {self.path} is read-only here: {reason}; "
                                    "use a role that may write it (see docs/engines.md, \"A shared warehouse\")")
            raise ReadOnlyError(f"cannot {action}: the warehouse {self.path} is open read-only; open it with "
                                "warehouse.open(path) (without read_only or sandboxed) to change it")

    def ingest_qrels(self, path: str | os.PathLike[str] | DataFrame, name: str | None = None, *,
                     description: str | None = None, replace: bool = False,
                     subtopics: bool = False) -> ingest.IngestResult:
        """Ingests a qrels file, or a pandas / polars / Arrow frame (columns query_id, doc_id, grade,
        or ir_datasets' query_id, doc_id, relevance: warehouse/ingestion/frames.py) with a name.
        subtopics=True reads a diversity qrels file, `qid subtopic docid grade` (ndeval's format)."""
        self._require_writable("ingest qrels")
        if frames.is_frame(path):
            if subtopics:
                raise UsageError("subtopic qrels come from a file (`qid subtopic docid grade`, ndeval's format); "
                                 "a frame is read as plain qrels")
            with self._statistics("qrels"):
                return frames.ingest_qrels_frame(self.db, path, name, store=lambda file: ingest.ingest_qrels(
                    self.db, file, name, description=description, replace=replace))
        with self._statistics("qrels"):
            return ingest.ingest_qrels(self.db, path, name, description=description, replace=replace,
                                       subtopics=subtopics)

    def ingest_qrels_files(self, paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
                           name: str | None = None, *, description: str | None = None, replace: bool = False,
                           subtopics: bool = False) -> list[ingest.IngestResult]:
        """Ingests qrels files and folders of them (`irw ingest qrels FILE... / FOLDER`), each a qrels set
        named by its file; every file is validated and every name checked before the first is stored.
        One path (a str or os.PathLike) is one file or folder. name names the one file given, or the
        one file a folder holds."""
        paths = _paths(paths, "ingest_qrels_files", "qrels", "qrels set", "ingest_qrels")
        self._require_writable("ingest qrels")
        with self._statistics("qrels"):
            return ingest.ingest_qrels_files(self.db, paths, name, description=description, replace=replace,
                                             subtopics=subtopics)

    def ingest_prefs(self, path: str | os.PathLike[str], name: str | None = None, *, description: str | None = None,
                     replace: bool = False, qrels_format: bool = False) -> ingest.IngestResult:
        """Ingests preference judgments (trec_eval's prefs format, `qid jg jsg docid rel_level`; with
        qrels_format a qrels file read as preferences, as trec_eval -R qrels_prefs) as a set the
        prefs_* measures evaluate against. A cycle of preferences, a bad line or a document rated
        twice in a sub-group is an error naming file:line, and nothing is stored."""
        self._require_writable("ingest prefs")
        return ingest.ingest_prefs(self.db, path, name, description=description, replace=replace,
                                   qrels_format=qrels_format)

    def ingest_run(self, path: str | os.PathLike[str] | DataFrame, name: str | None = None, *, system: str | None = None,
                   description: str | None = None, parameters: Mapping[str, str] | None = None,
                   replace: bool = False, date: str | dt.date | None = None) -> ingest.IngestResult:
        """Ingests one run file as run name, or else as its tag (a placeholder tag such as `rank` or
        `run_id`, batch.PLACEHOLDER_TAGS, gives the file's name instead, said in the result's
        messages). date (an ISO string, a date or a datetime) defaults to the ir_metadata header's
        date, else the file's modification time.

        path may be a pandas / polars / Arrow frame (columns query_id, doc_id, score and optionally
        rank, or PyTerrier's qid, docno, score, rank: warehouse/ingestion/frames.py); it then needs a name,
        and its date defaults to now. parameters: a mapping of names to values (_parameters)."""
        if isinstance(path, (list, tuple, set)):
            raise UsageError(f"ingest_run takes one run (a path or a data frame), not a {type(path).__name__} of "
                             "them: ingest_runs(paths) takes several")
        parameters = _parameters(parameters)
        self._require_writable("ingest a run")
        with self._statistics("runs"):
            if frames.is_frame(path):
                return frames.ingest_run_frame(self.db, path, name, date=date, store=lambda file, when: batch.ingest_runs(
                    self.db, [file], name=name, system=system, description=description, parameters=parameters,
                    replace=replace, date=when, folders=False)[0])
            return batch.ingest_runs(self.db, [path], name=name,
                                     name_from="auto" if name else batch.TAG_UNLESS_PLACEHOLDER, system=system,
                                     description=description, parameters=parameters, replace=replace, date=date,
                                     folders=False)[0]

    def ingest_runs(self, paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], *, name: str | None = None,
                    name_from: str = "auto",
                    name_template: str | None = None, system: str | None = None, description: str | None = None,
                    parameters: Mapping[str, str] | None = None, replace: bool = False,
                    date: str | dt.date | None = None,
                    on_step: Callable[[int, int], None] | None = None) -> list[ingest.IngestResult]:
        """Ingests run files and folders of run files, one run each (`irw ingest run`): named by
        name_from ("auto", "file" or "tag"; the rule is in warehouse/ingestion/batch.py and docs/input-formats.md), the
        whole batch checked before anything is stored (BatchError's lines say every problem). name names
        the run of a one-file batch; name_template (e.g. "{folder}.{short}": batch.TEMPLATE_FIELDS)
        names every run by fields of its file, and system may hold the same fields. One path (a str or
        os.PathLike) is one file or folder."""
        paths = _paths(paths, "ingest_runs", "run", "run", "ingest_run")
        parameters = _parameters(parameters)
        self._require_writable("ingest runs")
        with self._statistics("runs"):
            results = batch.ingest_runs(self.db, paths, name=name, name_from=name_from, name_template=name_template,
                                        system=system, description=description, parameters=parameters,
                                        replace=replace, date=date, on_step=on_step)
        if system is not None:
            ids = catalog.run_ids(self.db, [result.name for result in results])
            notes = catalog.systems_in_other_case(self.db, ids.values())
            for result in results:
                if ids[result.name] in notes:
                    result.messages.append(notes[ids[result.name]])
        return results

    @contextlib.contextmanager
    def _statistics(self, kind: str) -> Iterator[None]:
        """Takes the planner's statistics of the tables an ingest of qrels or runs wrote, once it is
        done: a server warehouse plans the queries that follow (a user measure over ranked_judged,
        irw sql) from them (sql/ingest/statistics_after_*.sql). DuckDB keeps its own as it writes."""
        yield
        self.db.refresh_statistics(kind)

    # -- browse ------------------------------------------------------------------------------
    def runs(self, runs: Iterable[str] | None = None) -> Table:
        """The listing of `irw runs`: every stored run, oldest ingest first, or the runs named in
        `runs` (names, not patterns: a selection of select_runs, `wh.runs(wh.select_runs(systems="BM25"))`)."""
        names = list(runs) if runs is not None else []
        listing = Table.from_result(self.db.run_file("catalog/runs.sql", {"chosen": runs is not None, "names": names}))
        # parameters by key: DuckDB's map keeps the order they were given in, PostgreSQL's JSONB
        # orders keys by length; listed alike from either
        at = listing.columns.index("parameters")
        listing.rows = [(*row[:at], dict(sorted(row[at].items())) if row[at] else row[at], *row[at + 1:])
                        for row in listing.rows]
        return listing

    def qrels_sets(self) -> Table:
        return Table.from_result(self.db.run_file("catalog/qrels_sets.sql"))

    def migrations(self) -> Table:
        """The schema migrations this warehouse has applied (opening it for writing applies the
        ones it lacks)."""
        return Table.from_result(self.db.run_file("catalog/migrations.sql"))

    def run_names(self) -> list[str]:
        """Every stored run's name, in the order `runs()` lists them (oldest ingest first)."""
        return [row[0] for row in self.db.run_file("catalog/run_names.sql").fetchall()]

    def select_runs(self, runs: str | Sequence[str] | None = None, *, systems: str | Sequence[str] | None = None,
                    qrels: str | None = None) -> catalog.RunSelection:
        """The stored runs that eval, compare and the reports take (warehouse/store/catalog.py, select_runs):
        runs are names and shell-style patterns (`'BM25*'`: fnmatch's * ? [seq], case-sensitive),
        united in the order given, every stored run when None; systems keeps the runs of those
        systems; with qrels, the runs a pattern, a system or the default chose that it judges no
        query of are left out (selection.left_out; selection.notes() says so). A run named outright
        is kept. A name, pattern or system that matches nothing is a NotFoundError saying what is
        stored. The result iterates as the run names and may be passed as `runs` anywhere."""
        _names_given("runs", runs)
        _names_given("systems", systems)
        _one_name_given("qrels", qrels)
        return catalog.select_runs(self.db, runs, systems=systems, qrels=qrels)

    def qrels_name(self, name: str | None = None, runs: str | Sequence[str] | None = None,
                   systems: str | Sequence[str] | None = None, baseline: str | None = None) -> str:
        """name; when name is None, the only stored qrels set, or the only one judging the runs and
        systems chosen (every stored run when none is) and the baseline run, when given (an error
        where several judge them, saying which)."""
        _one_name_given("qrels", name)
        _names_given("runs", runs)
        _one_name_given("baseline", baseline)
        return catalog.qrels_name(self.db, name, runs, systems, baseline)

    def remove_run(self, name: str) -> None:
        self.remove_runs([name])

    def remove_runs(self, names: Sequence[str]) -> None:
        """Removes the runs named (`irw rm run NAME...`), with their rows and scores, in one
        transaction: a name no run has removes none of them (NotFoundError)."""
        self._require_writable("remove a run")
        run_ids = catalog.run_ids(self.db, dict.fromkeys([names] if isinstance(names, str) else names))
        with self.db.transaction():
            for run_id in run_ids.values():
                catalog.delete_run(self.db, run_id)

    def rename_run(self, name: str, new_name: str) -> list[str]:
        """Renames a stored run, keeping its rows, scores, significance results and history (all keyed
        by its id); its system stays. A name another run holds is refused (ConflictError). Returns
        what changed, as `irw rename run` says it."""
        self._require_writable("rename a run")
        return catalog.rename_run(self.db, name, new_name)

    def rename_qrels(self, name: str, new_name: str) -> list[str]:
        """Renames a stored qrels set, keeping its judgments and every evaluation made with it."""
        self._require_writable("rename a qrels set")
        return catalog.rename_qrels_set(self.db, name, new_name)

    def edit_run(self, name: str, *, system: str | None = None, description: str | None = None,
                 date: str | dt.date | dt.datetime | None = None,
                 parameters: Mapping[str, str] | None = None) -> list[str]:
        """Changes a stored run's system, description, date (then from --date) or parameters without
        ingesting it again; what is not given stays (parameters, a mapping of names to values, replace
        the stored ones whole: _parameters). Returns what changed, as `irw edit run` says it."""
        parameters = _parameters(parameters)
        self._require_writable("edit a run")
        if system is None and description is None and date is None and parameters is None:
            raise UsageError("nothing to edit: give --system, --description, --date or --param")
        # what ingest refuses, edit refuses in the same words (an empty or `.` system, text that is
        # not UTF-8 were stored, or met DuckDB's own error)
        batch.refuse_bad_run_fields(system=system, description=description, parameters=parameters)
        if system is not None and ("{" in system or "}" in system):
            raise UsageError(f"the run's --system {said_name(system)} holds {{ or }}: ingest fills such fields from a "
                             "file's name; here give the system's name itself")
        run_id = catalog.run_id(self.db, name)
        run_date = batch.given_date(date) if date is not None else None
        old = self.db.run_file("catalog/run_settings.sql", {"run_id": run_id}).fetchone()
        with self.db.transaction():
            catalog.edit_run(self.db, run_id, system=system, description=description, parameters=parameters,
                             date=run_date)
        said = []
        for label, given, was in (("system", system, old[0]), ("description", description, old[1]),
                                  ("parameters", parameters,
                                   dict(old[2] or {}))):
            if given is not None:
                # a value given as it was is said so, not as a change from itself to itself
                change = "unchanged" if given == was else f"was {said_value(was)}"
                said.append(f"run {name}: {label} {said_value(given)}, {change}")
        if run_date is not None:
            same = str(run_date.value) == str(old[3]) and old[4] == run_date.source
            said.append(f"run {name}: date {said_date(run_date.value)} (from --date), "
                        + ("unchanged" if same else f"was {said_date(old[3])} (from {old[4]})"))
            if later := batch.future_date_said(name, run_date):
                said.append(later)
        if system is not None:
            said += catalog.systems_in_other_case(self.db, [run_id]).values()
        return said

    def remove_qrels(self, name: str) -> None:
        self._require_writable("remove a qrels set")
        set_id = catalog.qrels_set_id(self.db, name)
        with self.db.transaction():
            catalog.delete_qrels_set(self.db, set_id)

    # -- user measures (warehouse/evaluation/user_measures.py) --------------------------------------------
    def add_measure(self, path: str | os.PathLike[str], *, replace: bool = False, timeout: float | None = None):
        """Adds a measure file (a SELECT over ranked_judged with a header; docs/measures.md, "Measures you
        write in SQL"): checked in irw sql's sandbox, then usable in evaluate, compare and reports.
        replace=True replaces a measure of that name and deletes its scores (the result's
        scores_deleted says how many). timeout: the seconds its check (its SQL run on no run) may
        take before it is stopped and nothing is added (None: 300, as sql(); 0: no limit)."""
        from warehouse.evaluation import user_measures
        from warehouse.store import adhoc

        self._require_writable("add a measure")
        with (user_measures.time_limit(adhoc.checked_timeout(timeout)) if timeout is not None
              else contextlib.nullcontext()):
            return user_measures.add(self.db, os.fspath(path), replace=replace)

    def remove_measure(self, name: str) -> int:
        """Removes a user measure and every score computed with it; returns how many per-query
        scores were deleted."""
        from warehouse.evaluation import user_measures

        self._require_writable("remove a measure")
        return user_measures.remove(self.db, name)

    def user_measures(self) -> Table:
        """The measures added to this warehouse: name, parameters, aggregate, description, definition
        (the start of its sha256), source."""
        from warehouse.evaluation import user_measures

        return user_measures.listing(self.db)

    # -- evaluation --------------------------------------------------------------------------
    def evaluate(self, runs: str | Sequence[str] | None = None, qrels: str | None = None,
                 measures: Iterable[str] | str = (), *,
                 systems: str | Sequence[str] | None = None, per_query: bool = False,
                 settings: Settings | None = None, recompute: bool = False, timeout: float | None = None,
                 **options: Any) -> Evaluation:
        """Evaluates stored runs against a stored qrels set; scores are stored and reused.

        runs and systems choose the runs as select_runs() does: names and shell-style patterns
        (None: every stored run), of these systems; the runs a pattern, a system or the default
        chose that qrels does not judge are left out (the result's `selection` says which).
        qrels None: the one stored qrels set judging the runs chosen (qrels_name(); several are an
        error naming them).
        options are Settings fields: level, depth, judged_only, complete, compat, norel.
        recompute=True computes the scores again and replaces the stored ones. A run and measure
        with no value raises MeasureError (ReadOnlyError on a read-only warehouse) saying why.
        timeout: the seconds a measure of your own (add_measure) may run on the runs before it is
        stopped and nothing is stored (None: 300, as sql(); 0: no limit); built-in measures have none.
        """
        from warehouse.evaluation.evaluator import Evaluator
        from warehouse.evaluation.user_measures import time_limit

        settings = Settings.resolve(settings, options)
        _names_given("runs", runs)
        if runs is not None and not isinstance(runs, (str, catalog.RunSelection)):
            runs = list(runs)
            if not runs:
                raise UsageError("name at least one run (runs=None evaluates every stored run)")
        if qrels is None:
            split = catalog.judging_split(self.db, runs, systems)
            if split is not None and len(split.by_set) > 1:  # what `irw eval` without --qrels does
                sets = ", ".join(f"{listed_name(q)}: {len(names):,}" for q, names in split.by_set.items())
                raise UsageError(f"the runs chosen are of several collections (runs judged by {sets}): "
                                 "`wh.evaluate_each(runs, measures)` evaluates each against the stored set judging "
                                 "it, or name one set with `qrels=`")
            qrels = next(iter(split.by_set)) if split is not None else self.qrels_name(None, runs, systems)
        selection = self.select_runs(runs, systems=systems, qrels=qrels)
        measures = [measures] if isinstance(measures, str) else list(measures)
        if timeout is not None:
            from warehouse.store import adhoc

            timeout = adhoc.checked_timeout(timeout)
        with time_limit(timeout) if timeout is not None else contextlib.nullcontext():
            evaluation = Evaluator(self.db).evaluate(list(selection), qrels, measures, per_query=per_query,
                                                     settings=settings, recompute=recompute)
        evaluation.selection = selection
        return evaluation

    def evaluate_each(self, runs: str | Sequence[str] | None = None, measures: Iterable[str] | str = (), *,
                      systems: str | Sequence[str] | None = None, per_query: bool = False,
                      settings: Settings | None = None, recompute: bool = False, timeout: float | None = None,
                      **options: Any):
        """Each run runs and systems choose (as select_runs() does; None: every stored run)
        evaluated against the one stored qrels set judging it (judged_by in `irw runs`), as `irw
        eval` without --qrels does: a warehouse of several collections in one call. Returns an
        EvaluationsBySet, a table with a qrels column beside the run (an Evaluation per set in
        by_qrels); the runs no stored set judges are left out (left_out). Where one set judges the
        runs, by_qrels holds the one Evaluation evaluate(runs, that set) gives; where a run is judged
        by several sets (versions of one collection's qrels) or a run named outright by none, it is
        an error saying what to do. Other arguments as evaluate()'s."""
        from warehouse.evaluation.evaluator import EvaluationsBySet

        _names_given("runs", runs)
        split = catalog.judging_split(self.db, runs, systems)
        call = dict(per_query=per_query, settings=settings, recompute=recompute, timeout=timeout, **options)
        if split is None or len(split.by_set) == 1:  # one set: its runs chosen as evaluate() chooses them
            qrels = next(iter(split.by_set)) if split is not None else self.qrels_name(None, runs, systems)
            return EvaluationsBySet({qrels: self.evaluate(runs, qrels, measures, systems=systems, **call)})
        by_qrels = {qrels: self.evaluate(list(names), qrels, measures, **call) for qrels, names in split.by_set.items()}
        return EvaluationsBySet(by_qrels, split.left_out, split.notes())

    def compare(self, runs: str | Sequence[str] | None = None, qrels: str | None = None,
                measures: Iterable[str] | str | None = None, *, systems: str | Sequence[str] | None = None,
                baseline: str | None = None, settings: Settings | None = None, test: str = "randomization",
                alpha: float = 0.05, correction: str = "holm", permutations: int = 10_000, seed: int = 0,
                **options: Any):
        """Paired significance tests as `irw compare` makes them (by default on the one qrels set
        judging the runs; options are Settings fields). runs and systems choose the runs as
        select_runs() does (every stored run that qrels judges by default; the result's `selection`
        says which were left out). The result converts like a table (to_pandas() ...) and prints as a paper table
        with to_latex() / to_markdown()."""
        from warehouse import reports

        measures, settings, stats = _tested(measures, settings, options, test, alpha, correction, permutations, seed)
        return reports.compare(self, runs, self.qrels_name(qrels, runs, systems, baseline), measures, systems=systems,
                               baseline=baseline, settings=settings, stats=stats)

    def leaderboard(self, qrels: str | None = None, measures: Iterable[str] | str | None = None, *,
                    runs: str | Sequence[str] | None = None, systems: str | Sequence[str] | None = None,
                    baseline: str | None = None, settings: Settings | None = None, test: str = "randomization",
                    alpha: float = 0.05, correction: str = "holm", permutations: int = 10_000, seed: int = 0,
                    **options: Any):
        """The stored runs on one qrels set (by default the one judging them), ranked by the first
        measure (default: AP, nDCG@10, P@10) and tested against the baseline (default: the top run), as
        `irw report leaderboard` makes its board; options are Settings fields. runs and systems choose
        the runs as select_runs() does (the result's `selection` says which were left out). The
        result converts like a table (to_pandas() ...) and prints as a paper table with to_latex() /
        to_markdown()."""
        from warehouse import reports

        measures, settings, stats = _tested(measures, settings, options, test, alpha, correction, permutations, seed)
        qrels = self.qrels_name(qrels, runs, systems, baseline)
        return reports.leaderboard(self, qrels, measures, runs=self.select_runs(runs, systems=systems, qrels=qrels),
                                   baseline=baseline, settings=settings, stats=stats)

    def systems(self, measure: str = "AP", *, qrels: str | Sequence[str] | None = None,
                runs: str | Sequence[str] | None = None, systems: str | Sequence[str] | None = None,
                settings: Settings | None = None, **options: Any):
        """Systems x qrels sets, as `irw report systems` makes the table: each system's latest run
        on each set (every stored set judging a chosen run by default, or qrels in its order) on
        one measure, and its mean over the sets, by which the systems are ranked; options are
        Settings fields. The result converts like a table (to_pandas() ...); runs_table() says the
        run behind each value."""
        from warehouse import reports

        return reports.systems(self, measure, qrels=qrels, runs=runs, systems=systems,
                               settings=Settings.resolve(settings, options))

    def export(self, directory: str | os.PathLike[str], *, replace: bool = False) -> ExportResult:
        """Writes every table as Parquet under directory, for Spark or any other engine (`irw
        export`; warehouse/store/export.py says what goes where). An existing directory is refused unless
        it is empty, or replace=True and it holds an earlier export."""
        from warehouse.store.export import export_warehouse

        return export_warehouse(self.db, directory, replace=replace)

    # -- ad-hoc SQL --------------------------------------------------------------------------
    def sql(self, query: str, params: Sequence[Any] | Mapping[str, Any] | None = None, *,
            timeout: float | None = None, max_rows: int | None = None) -> Table:
        """Runs one read-only statement (SELECT, PIVOT, or EXPLAIN of one), values bound as parameters.

        It reads the warehouse and nothing else, and DuckDB enforces it: the statement runs on a
        read-only connection with external access, extension install/autoload and configuration
        changes disabled and locked (warehouse/engines/duckdb.py, Database.sandbox; on a warehouse open for
        writing that connection replaces the writing one until irw needs it again). Statement
        checks come first, for clear messages (warehouse/store/adhoc.py), and the statement runs in a
        transaction that is always rolled back. Refusals raise ReadOnlyError, SQL DuckDB rejects
        QueryError. On a PostgreSQL warehouse the statement is PostgreSQL's SQL (psycopg's %s /
        %(name)s parameters), checked the same way and run in a READ ONLY transaction that is
        rolled back; the role's privileges are the server's own enforcement (docs/engines.md, "A shared
        warehouse"). A statement still running after timeout seconds (default
        adhoc.DEFAULT_TIMEOUT, 300; 0 for none) is stopped and raises QueryError; on PostgreSQL
        user SQL runs under a role that can only read (warehouse/store/adhoc.py says which).
        max_rows: only the first rows are fetched (on DuckDB the others are never computed).
        """
        from warehouse.store import adhoc

        return adhoc.run(self.db, query, params, timeout, max_rows)

    def sql_rows(self, query: str, params: Sequence[Any] | Mapping[str, Any] | None = None, *,
                 timeout: float | None = None):
        """As sql(), the rows read a chunk at a time while the context is open, so that a result
        larger than memory is never held whole (`irw sql` writes them so):

            with wh.sql_rows("select * from run_rows") as rows:
                for chunk in rows.chunks:   # lists of row tuples; rows.columns names them
                    ...

        The timeout counts the statement's own time, not the time spent between chunks."""
        from warehouse.store import adhoc

        return adhoc.stream(self.db, query, params, timeout)

def evaluate_files(qrels: str | os.PathLike[str] | DataFrame,
                   runs: str | os.PathLike[str] | DataFrame | Sequence[str | os.PathLike[str] | DataFrame] |
                         Mapping[str, str | os.PathLike[str] | DataFrame],
                   measures: Iterable[str] | str, *, per_query: bool = False, settings: Settings | None = None,
                   **options: Any) -> Evaluation:
    """Evaluates run files against a qrels file, keeping nothing: files to numbers in one call.

    Runs are named by their paths as given, a folder's files and a glob pattern's matches
    (`runs/`, `'runs/*.txt'`, as `irw trec-eval` takes them) by theirs (a mapping names them;
    frames in a list are `run 1`, `run 2` ...); qrels and runs may be pandas / polars / Arrow frames. The files are validated as `irw ingest` validates them
    (a bad file raises InputFileError naming file:line), into a one-shot in-memory database
    (warehouse/evaluation/oneshot.py: a warehouse's tables without its bookkeeping) that keeps only the judged
    rows of each run (ingest.ingest_run's judged_rows_only), unless --compat 10 needs every row to
    re-sort by double scores. options are Settings fields, as for evaluate().
    """
    from warehouse.evaluation import oneshot
    from warehouse.evaluation.evaluator import Evaluator, keeps_judged_rows_only

    _refuse_input(qrels, "qrels")
    settings = Settings.resolve(settings, options)
    measures = [measures] if isinstance(measures, str) else list(measures)
    judged_rows_only = keeps_judged_rows_only(settings, measures)
    named = _named_runs(runs)
    # the qrels set named as the runs are, by the path given, so that a message names the file
    qrels_name = "qrels" if frames.is_frame(qrels) else os.fspath(qrels)
    # thrown away on return: no file is hashed
    with oneshot.database(input_bytes=oneshot.input_size([qrels, *named.values()])) as db:
        if frames.is_frame(qrels):
            frames.ingest_qrels_frame(db, qrels, qrels_name, store=lambda file: ingest.ingest_qrels(
                db, file, qrels_name, digest=False))
        else:
            try:
                ingest.ingest_qrels(db, qrels, qrels_name, digest=False)
            except ingest.SwappedFileError as exc:
                raise _swapped_qrels(db, exc, named) from None
        for name, run in named.items():
            if frames.is_frame(run):
                frames.ingest_run_frame(db, run, name, store=lambda file, _date, name=name: ingest.ingest_run(
                    db, file, name, judged_rows_only=judged_rows_only, digest=False, read_ir_metadata=False))
            else:
                try:
                    ingest.ingest_run(db, run, name, judged_rows_only=judged_rows_only, digest=False,
                                      read_ir_metadata=False)
                except ingest.SwappedFileError as exc:  # the qrels given are qrels: no swap, qrels given as a run
                    raise ingest.SwappedFileError(exc.path, exc.looks_like, "runs takes run files, and the qrels "
                                                  f"come first: {EVALUATE_FILES_ORDER}") from None
        return Evaluator(db).evaluate(list(named), qrels_name, measures, per_query=per_query, settings=settings)


@dataclass
class SparkEvaluated:
    """What evaluate_on_spark returns: the evaluation, the qrels it was made with (the path Spark
    read, or with into the qrels set's name in that warehouse), and what into stored (else None)."""

    evaluation: Evaluation
    qrels: str
    stored: "StoredEvaluation | None" = None
    left_out: tuple[str, ...] = ()  # runs given of which the qrels judge no query: not evaluated, not stored

    def lines(self) -> list[str]:
        """What was left out and what was stored, as `irw eval --engine spark` says it."""
        lines = []
        if self.left_out:  # names through listed_name, as `irw eval --qrels X` says the runs it leaves out
            count = len(self.left_out)
            named = ", ".join(map(catalog.listed_name, self.left_out[:6])) + (
                f" and {count - 6:,} more" if count > 6 else "")
            lines.append(f"# {count:,} run{'s' * (count != 1)} left out: no query judged in qrels "
                         f"{catalog.listed_name(self.qrels)} ({named})")
        return lines + (self.stored.lines() if self.stored is not None else [])


def evaluate_on_spark(qrels: Any, runs: Any, measures: Iterable[str] | str, *,
                      into: str | os.PathLike[str] | None = None, master: str | None = None, replace: bool = False,
                      per_query: bool = False, settings: Settings | None = None, **options: Any) -> SparkEvaluated:
    """Evaluates run files on Spark (`irw eval --engine spark`): qrels and runs as
    warehouse.engines.spark.evaluate takes them (paths Spark reads: files, globs, folders, Parquet; or Spark
    DataFrames), on the cluster master (default local[*], or the session already running). Without
    into nothing is kept. With into (a DuckDB file or PostgreSQL URL; qrels a path) the qrels, the
    runs' descriptions and their per-query scores are stored there (warehouse/engines/spark_store.py;
    replace as for copy), with what the reports read beside the measures, and the evaluation
    returned is read back from that warehouse: what it holds now. options are Settings fields, as
    for evaluate_files()."""
    from warehouse.engines import spark, spark_store

    settings = Settings.resolve(settings, options)
    measures = [measures] if isinstance(measures, str) else list(measures)
    _require_spark_measures(measures, into)
    # before the JVM starts (~15-30 s): what the paths are, and qrels that are a run file
    spark.refuse_folders_of_folders(runs)
    spark.refuse_missing_paths(qrels, runs)
    _refuse_swapped_before_spark(qrels, runs)
    with spark.command_session(master) as session:
        try:
            result = spark.evaluate(session, qrels, runs,
                                    spark_store.with_report_measures(measures, settings) if into else measures,
                                    settings=settings, collect_per_query=per_query and not into)
        except ingest.SwappedFileError as exc:  # a glob, folder or URL Spark read, said in the call's terms
            raise _swapped_on_spark(exc) from None
        try:
            if into is None:
                return SparkEvaluated(result.evaluation, qrels, left_out=result.left_out)
            with Warehouse(into) as wh:
                stored = spark_store.store(result, wh.db, qrels, replace=replace)
                # read back from the warehouse: what is returned is what was stored
                evaluation = wh.evaluate(list(stored.runs.values()), stored.qrels, measures, per_query=per_query,
                                         settings=settings)
                return SparkEvaluated(evaluation, stored.qrels, stored, result.left_out)
        finally:
            result.close()


def _require_spark_measures(measures: list[str], into) -> None:
    """The measures Spark computes (irw's built-in ones), checked before its JVM starts; a measure of
    the user's own (irw measures add), which the warehouse `into` holds, is said to be one, with
    where it can be computed."""
    from warehouse.formats.escaping import shell_word

    from warehouse.errors import IrwError, MeasureError
    from warehouse.evaluation import user_measures
    from warehouse.evaluation.measures import parse, typed_name

    for spec in measures:
        try:
            parse(spec, builtin_only=True)
        except MeasureError as exc:
            own = set()
            if into is not None and str(exc).startswith("unknown measure"):
                try:
                    with open(into, read_only=True) as wh:
                        own = {row["name"] for row in user_measures.stored(wh.db)}
                except IrwError:  # no warehouse there yet: nothing of the user's
                    pass
            if typed_name(spec) in own:
                db = shell_word(os.fspath(into))
                raise MeasureError(f"{spec} is a measure of your own in {into} (irw measures add), and Spark computes "
                                   "irw's built-in measures only: store the runs' rows there (irw ingest run FILE "
                                   f"--db {db}) and evaluate it there (irw eval --db {db} -m {shell_word(spec)})") \
                    from None
            if str(exc).startswith("unknown measure"):
                # without --into no warehouse is read: a measure of the user's own was only "unknown"
                # (a user-measures walk)
                raise MeasureError(f"{exc}; Spark computes irw's built-in measures only (a measure added with irw "
                                   "measures add is computed in its warehouse: irw eval -m NAME)") from None
            raise


EVALUATE_FILES_ORDER = "evaluate_files(qrels, runs, measures)"
EVALUATE_ON_SPARK_ORDER = "evaluate_on_spark(qrels, runs, measures)"


def _refuse_swapped_before_spark(qrels, runs) -> None:
    """qrels given as one local text file that looks like a run file, refused before the JVM starts
    as evaluate_files refuses it (_swapped_qrels): ingestion's own swap rule, in a one-shot database,
    which reads no more than the file's first lines of a run file (ingestion's first window). Any
    other problem of the file is left to Spark's reading to say, in its words."""
    from warehouse.engines import spark
    from warehouse.errors import IrwError
    from warehouse.evaluation import oneshot

    if not isinstance(qrels, (str, os.PathLike)) or ingest.has_scheme(qrels) or not os.path.isfile(qrels) \
            or os.fspath(qrels).endswith(".parquet"):
        return
    items = spark.run_items(runs)
    local = all(isinstance(r, (str, os.PathLike)) and not ingest.has_scheme(r) and os.path.isfile(r) for r in items)
    named = {os.fspath(r): r for r in items} if local else {}
    with oneshot.database() as db:
        try:
            ingest.ingest_qrels(db, qrels, "qrels", digest=False)
        except ingest.SwappedFileError as exc:
            raise _swapped_qrels(db, exc, named, EVALUATE_ON_SPARK_ORDER) from None
        except IrwError:
            pass


def _swapped_on_spark(error):
    """A SwappedFileError of Spark's reading (warehouse/engines/spark.py, _refuse_swapped), in
    evaluate_on_spark's terms as evaluate_files says its own: qrels that look like a run file were
    given in the place of the runs, or a qrels file in the place of a run."""
    if error.looks_like.startswith(ingest.RUN_FILE_LOOKS):
        return ingest.SwappedFileError(error.path, error.looks_like, "did you swap qrels and runs? the qrels come "
                                       f"first: {EVALUATE_ON_SPARK_ORDER}")
    return ingest.SwappedFileError(error.path, error.looks_like, "runs takes run files, and the qrels come first: "
                                   f"{EVALUATE_ON_SPARK_ORDER}")


def _swapped_qrels(db, error, named: dict[str, Any], order: str = EVALUATE_FILES_ORDER):
    """The SwappedFileError of evaluate_files's qrels that look like a run file: said as the
    arguments given in the wrong order, as `irw trec-eval` asks (warehouse/commands/trec_eval.py,
    _swapped_files_named), in the call's terms (order: the call, evaluate_files's or
    evaluate_on_spark's). When runs is one file, it is read as a run to say
    whether it looks like qrels too (then the two were swapped for sure)."""
    from warehouse.errors import IrwError

    hint = f"did you swap qrels and runs? the qrels come first: {order}"
    files = [run for run in named.values() if not frames.is_frame(run)]
    if len(named) == 1 and len(files) == 1:
        try:
            ingest.ingest_run(db, files[0], "runs", digest=False, read_ir_metadata=False)
        except ingest.SwappedFileError as run_error:
            hint = (f"it was given as qrels, and runs ({os.fspath(files[0])}) {run_error.looks_like}: swap them, "
                    f"{order}")
        except IrwError:  # a run of its own problems: said once the qrels are right
            pass
    return ingest.SwappedFileError(error.path, error.looks_like, hint)


RUNS_TAKEN = ("evaluate_files takes runs as a path (a str or os.PathLike: a run file, a folder or a glob pattern), "
              "a data frame (pandas, polars or Arrow), a list of them, or a mapping of names to them")
QRELS_TAKEN = ("evaluate_files takes qrels as one path (a str or os.PathLike) to a qrels file, or a data frame "
               "(pandas, polars or Arrow)")
# what a message shows of a pytrec_eval-style dict made a frame: irw's own column names
FRAME_OF_DICT = {"runs": ("score", "run"), "qrels": ("relevance", "qrels")}


def _refuse_input(value: Any, argument: str, where: str = "") -> None:
    """A UsageError for a qrels or run of evaluate_files that is neither a path nor a data frame
    (where: the item of runs it is, `runs[2]`), naming what was given and what is taken: a polars
    LazyFrame is to be collected, a pytrec_eval-style dict made a frame."""
    if isinstance(value, (str, os.PathLike)) or frames.is_frame(value):
        return
    taken = RUNS_TAKEN if argument == "runs" else QRELS_TAKEN
    got = f"got {_given(value)}" + (f" as {where}" if where else "")
    module = type(value).__module__.split(".")[0]
    if module == "polars" and type(value).__name__ == "LazyFrame":
        hint = "a LazyFrame is a query, not its rows: collect it first, lazy_frame.collect()"
    elif isinstance(value, Mapping):
        column, kind = FRAME_OF_DICT[argument]
        hint = (f"a pytrec_eval-style dict ({{query: {{doc: {column}}}}}) is not read: write it to a file, or "
                f"make it a data frame, pandas.DataFrame([(q, d, v) for q, docs in {kind}.items() for d, v in "
                f"docs.items()], columns=['query_id', 'doc_id', '{column}'])")
    elif module in frames.FRAME_MODULES:
        hint = "a data frame is a pandas or polars DataFrame, or an Arrow Table or RecordBatch"
    elif isinstance(value, (bytes, bytearray)):
        hint = "give a path as a str: os.fsdecode(path)"
    elif argument == "qrels" and isinstance(value, Iterable) and not where:
        hint = "one qrels set is evaluated at a time: give one file"
    else:
        hint = ""
    raise UsageError(f"{taken}; {got}" + (f": {hint}" if hint else ""))


def _named_runs(runs) -> dict[str, Any]:
    """name -> path or frame: a mapping as given; paths named by themselves (a path given twice is
    one run), a folder or a glob pattern by each file it holds or matches (as `irw trec-eval` takes
    them: ingest.run_files); frames in a list named `run 1`, `run 2` ... by their position. What is
    neither a path nor a frame is refused before anything is read (_refuse_input)."""
    if isinstance(runs, Mapping):
        for name, run in runs.items():
            _refuse_input(run, "runs", f"runs[{name!r}]")
        return {str(name): run for name, run in runs.items()}
    if not isinstance(runs, Iterable) or isinstance(runs, (bytes, bytearray)) or (
            type(runs).__module__.split(".")[0] in frames.FRAME_MODULES and not frames.is_frame(runs)):
        _refuse_input(runs, "runs")
    items = [runs] if isinstance(runs, (str, os.PathLike)) or frames.is_frame(runs) else list(runs)
    for i, run in enumerate(items):
        _refuse_input(run, "runs", f"runs[{i}]")
    named: dict[str, Any] = {}
    for i, run in enumerate(items, start=1):
        if frames.is_frame(run):
            named[f"run {i}"] = run
        elif Path(run).is_dir() or not Path(run).exists():  # a folder, a pattern, or a missing file
            named.update((os.fspath(path), path) for path in ingest.run_files([run]))
        else:
            named[os.fspath(run)] = run
    return named


def _paths(paths: Any, method: str, kind: str, one: str, frame_method: str) -> list[str | os.PathLike[str]]:
    """The files and folders an ingest of several is given, as a list: one str or os.PathLike is one
    path, as evaluate_files takes it (iterated, a str gave its letters: '/' read the root folder).
    What is no path is refused before anything is read, with the call a frame is ingested by."""
    if isinstance(paths, (str, os.PathLike)):
        return [paths]
    taken = (f"{method} takes {kind} files and folders: one path (a str or os.PathLike) or a list of paths, "
             "and was given {}; a data frame is one " + f"{one}: wh.{frame_method}(frame, name=...), once per frame")
    if isinstance(paths, (bytes, bytearray)) or frames.is_frame(paths) or not isinstance(paths, Iterable):
        raise UsageError(taken.format(f"a value of type {_type_name(paths)}"))
    items = list(paths)
    for item in items:
        if not isinstance(item, (str, os.PathLike)):
            raise UsageError(taken.format(f"a list with an item of type {_type_name(item)}"))
    return items


PARAMETERS_TAKEN = 'parameters takes a mapping of names to values, e.g. parameters={"k1": "0.9"}'


def _tested(measures: Iterable[str] | str | None, settings: Settings | None, options: dict[str, Any], test: str,
            alpha: float, correction: str, permutations: int, seed: int) -> tuple[list[str] | None, Settings, Any]:
    """Warehouse.compare's and Warehouse.leaderboard's arguments as the reports take them: the
    measures as a list (None: the reports' default), the settings with options applied, and the
    StatsSettings of the test."""
    from warehouse.evaluation.stats import StatsSettings

    settings = Settings.resolve(settings, options)  # first, as before: a misspelt option is said first
    measures = [measures] if isinstance(measures, str) else (list(measures) if measures is not None else None)
    stats = StatsSettings(test=test, alpha=alpha, correction=correction, permutations=permutations, seed=seed)
    return measures, settings, stats


def _parameters(parameters: Any) -> dict[str, str] | None:
    """A run's parameters as ingest_run, ingest_runs and edit_run take them, checked before anything
    is read or stored: None (not given), or a mapping of names (non-empty str, as `--param k=v` gives
    them) to values, each a str or a number (an int, float or Decimal; a bool is true or false),
    stored as its text: {"k1": 0.9} is stored as {"k1": "0.9"}, as DuckDB's map of text stored it
    before this check, and now on every engine alike. Anything else (the str "k1=0.9", a list, which
    dict() read as pairs of letters, None as a value) is a UsageError saying what was given."""
    if parameters is None:
        return None
    if not isinstance(parameters, Mapping):
        raise UsageError(f"{PARAMETERS_TAKEN}; got {_given(parameters)}{_parameters_hint(parameters)}")
    taken: dict[str, str] = {}
    for key, value in parameters.items():
        if not isinstance(key, str) or not key:
            raise UsageError(f"{PARAMETERS_TAKEN}, each name a non-empty str; got {_given(key)} as a name")
        if isinstance(value, bool):
            taken[key] = "true" if value else "false"
        elif isinstance(value, (str, numbers.Real, decimal.Decimal)):
            taken[key] = str(value)
        else:
            raise UsageError(f"{PARAMETERS_TAKEN}, each value a str or a number; got {_given(value)} as the value "
                             f"of {key!r}" + ("" if value is None else f": give its text, str(value)"))
    return taken


def _parameters_hint(parameters: Any) -> str:
    """For parameters given as `--param` writes them (the str 'k1=0.9', or a list of such), the
    mapping they mean; for a list of pairs, dict() of it."""
    items = [parameters] if isinstance(parameters, str) else \
        parameters if isinstance(parameters, (list, tuple)) else None
    if not items:
        return ""
    if all(isinstance(item, str) and "=" in item and item.partition("=")[0] for item in items):
        return f": give parameters={dict(item.partition('=')[::2] for item in items)!r}"
    if all(isinstance(item, tuple) and len(item) == 2 for item in items):
        return ": give parameters=dict(pairs)"
    return ""


def _given(value: Any) -> str:
    """What a message says a caller gave: the str 'k1=0.9', the int 42, a dict, a polars.LazyFrame
    (a builtin's value when short, else the class)."""
    name = _type_name(value)
    if type(value).__module__ == "builtins":
        text = repr(value)
        if value is None or len(text) <= 60:
            return "None" if value is None else f"the {name} {text}"
    article = "an" if name[0] in "aeiouAEIOU" else "a"
    return f"{article} {name}" + (" object" if name in ("bytes", "bytearray") else "")


def _type_name(value: Any) -> str:
    """pandas.DataFrame, int: the class a message names, by its package when not a builtin."""
    module = type(value).__module__.split(".")[0]
    return type(value).__name__ if module == "builtins" else f"{module}.{type(value).__name__}"


def _home(path: Any) -> Any:
    """path with a leading ~ read as the home folder (os.path.expanduser), as DuckDB reads the
    path it opens and a shell reads a word: kept as given, irw created a folder named ~ in the
    working directory. A PostgreSQL URL or :memory: starts with no ~ and is kept."""
    if isinstance(path, (str, os.PathLike)):
        text = os.fspath(path)
        if isinstance(text, str) and text.startswith("~"):
            return os.path.expanduser(text)
    return path


def copy(source: str | os.PathLike[str], target: str | os.PathLike[str], *, replace: bool = False,
         runs: Sequence[str] | None = None) -> transfer.CopyResult:
    """Copies a warehouse's qrels sets, runs (all, or those named) and stored scores into another,
    DuckDB file or PostgreSQL URL either way (`irw copy --from SOURCE --to TARGET`), in one
    transaction on the target. A name the target holds with other content is a ConflictError
    unless replace=True; one it holds with the same content is kept (its missing scores are copied)."""
    from warehouse.engines import one_file

    source, target = _home(source), _home(target)
    if one_file(source, target):  # said before opening: DuckDB's own refusal names neither
        raise UsageError(f"--from and --to are the same warehouse ({source}): name another target")
    try:
        opened = Warehouse(source, read_only=True)
    except WarehouseNotFound:  # its own words send the user to --db, which irw copy has not
        raise WarehouseNotFound(f"no warehouse at {source} to copy from: --from names a warehouse that exists "
                                "(a DuckDB file or a postgresql:// URL)") from None
    with opened as src:
        if not src.db.run_file("catalog/qrels_set_count.sql").fetchone()[0] and \
                not src.db.run_file("catalog/run_count.sql").fetchone()[0]:
            # before the target is opened, which would create it: an empty copy is no success
            raise NotFoundError(f"{src.path} holds no qrels set and no run: nothing to copy")
        with Warehouse(target) as dst:
            if same_warehouse(src.db, dst.db):
                raise UsageError(f"--from and --to are the same warehouse ({src.path}): name another target")
            with dst._statistics("qrels"), dst._statistics("runs"):
                result = transfer.copy_warehouse(src.db, dst.db, replace=replace,
                                                 runs=list(runs) if runs is not None else None)
            result.upgraded = upgrade_said(dst.db)
            return result


def open(path: str | os.PathLike[str] | None = None, *, read_only: bool = False,  # noqa: A001
         create: bool = True, sandboxed: bool = False) -> Warehouse:
    """Opens the warehouse at path (default ./irw.duckdb or $IRW_DB), creating it unless
    read_only or create=False. path is a DuckDB file (a leading ~ is the home folder, as DuckDB and a
    shell read it), or a PostgreSQL URL
    (postgresql://USER:PASSWORD@HOST:5432/DBNAME: warehouse/engines/postgres.py; its password is never shown).

    sandboxed=True opens only the sandbox `sql()` runs on (read-only, nothing outside the
    warehouse; `irw sql` opens it so). What cannot be a warehouse is refused with a
    WarehouseOpenError: another URL, a directory, FIFO or device, a file that is not DuckDB's, a
    DuckDB database or a PostgreSQL schema that is not an irw warehouse (irw never adds its tables
    to one)."""
    return Warehouse(path, read_only=read_only, create=create, sandboxed=sandboxed)


def _one_name_given(argument: str, value: Any) -> None:
    """A name argument that takes one name (a str) or None: a list or another type said as such,
    before it reaches SQL as a value of another type."""
    if value is not None and not isinstance(value, str):
        raise UsageError(f"{argument}= takes one name (a str), not {value!r} (of type {type(value).__name__})")


def _names_given(argument: str, value: Any) -> None:
    """runs= or systems=: a name or pattern (a str), a sequence of them, a RunSelection, or None."""
    if value is None or isinstance(value, (str, catalog.RunSelection)):
        return
    if isinstance(value, (bytes, Mapping)) or not isinstance(value, Iterable):
        raise UsageError(f"{argument}= takes a name (a str) or a list of names, not {value!r} (of type "
                         f"{type(value).__name__})")
    for item in value:
        if not isinstance(item, str):
            raise UsageError(f"{argument}= takes a name (a str) or a list of names; it holds {item!r} (of type "
                             f"{type(item).__name__})")

