"""Opens a warehouse file with DuckDB and keeps its schema current; SQLAlchemy on request.

Two kinds of DuckDB connection reach a warehouse file:

- the full-access connection irw works through (ingest, evaluate, reports, `Warehouse.engine`):
  read-write unless opened read_only, with DuckDB's defaults (it reads input files);
- the sandbox, for SQL irw did not write (`irw sql`, `Warehouse.sql`): read-only, with
  `enable_external_access=false` (no file, URL, ATTACH, COPY TO, INSTALL or LOAD),
  `autoload_known_extensions=false`, `autoinstall_known_extensions=false`, no Python replacement
  scans, and `lock_configuration=true` so no statement can undo any of it. DuckDB enforces these
  itself, whatever the statement checks in warehouse/core.py miss.

DuckDB keeps one configuration per database file in a process: a connection with other settings
to a file already open fails ("different configuration"), and a second instance cannot attach it
("Unique file handle conflict"). So the two never coexist on one file: `sandbox()` closes the
full-access connection and opens the sandbox; the next use of `con` closes the sandbox and opens
the full-access connection again (see `sandbox` for the cost and the alternatives measured).

SQLAlchemy is the connection layer users can reach (`Warehouse.engine`): an engine whose one
pooled connection is the full-access DuckDB connection. It is built on first use: importing
SQLAlchemy and building the engine cost ~0.2 s, which every irw command that never asks for it
would otherwise pay at start-up.
"""
from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import threading
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

try:
    # DuckDB's engine module, which the duckdb package wraps and re-exports (its connect, connection,
    # errors, tokenize and StatementType are these very objects): importing the package also loads
    # its relational and expression API and reads its version with importlib.metadata, ~0.08 s of
    # CPU and ~12 MB that an `irw trec-eval` on DL19 (~0.3 s in all) would pay for nothing. Code
    # that imports duckdb itself (duckdb_engine, a user's) gets the same objects.
    import _duckdb as duckdb
except ImportError:  # a DuckDB whose engine module is named otherwise
    import duckdb

from warehouse.errors import (ConflictError, DatabaseError, IrwError, NotAWarehouse, SchemaVersionError, WarehouseClosed,
                              WarehouseDamaged, WarehouseLocked, WarehouseNotFound, WarehouseOpenError)
from warehouse import interrupt, leftovers
from warehouse.formats import files as output
from warehouse.engines.dialect import DUCKDB_ONLY, POSTGRES_ONLY
from warehouse.engines.base import Statements
from warehouse.resources import keep_cached, read_cached, read_sql, sql_dir

DEFAULT_PATH = "irw.duckdb"
MEMORY = ":memory:"
_MIGRATION_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")
# postgresql://..., s3://..., x://; and DuckDB's own remote prefixes (MotherDuck).
_URL = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.\-]*://|md:|motherduck:)", re.IGNORECASE)
# Settings of the sandbox connection, given when it is opened (enable_external_access can only be
# turned off before a database starts). enable_progress_bar is a per-connection setting DuckDB
# refuses in a connect config, so it is set just before lock_configuration.
SANDBOX_CONFIG = {
    "enable_external_access": False,
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
    "python_enable_replacements": False,
}


_SIZE = re.compile(r"\s*\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*", re.IGNORECASE)
# DuckDB's memory_limit when IRW_MEMORY_LIMIT is not set: 4 GiB (a 28M-line run, the largest the
# benchmark evaluates, takes 2.5 GB), or half the machine's memory where that is less
DEFAULT_MEMORY_LIMIT = "4GiB, or half the machine's memory if less"
_DEFAULT_MEMORY_BYTES = 4 << 30
# DuckDB's spill file names (its default temp_directory FILE.tmp, before irw gave each open its own)
_DUCKDB_SPILL_FILE = re.compile(r"duckdb_temp_.+")


def _checked_size(text: str, variable: str) -> str:
    if not _SIZE.fullmatch(text):
        raise WarehouseOpenError(f"{variable}={text!r} is not a size; give one like 2GiB or 500MB")
    return text.strip()


def memory_limit() -> str:
    """The memory DuckDB may use in a command (its memory_limit): IRW_MEMORY_LIMIT, else
    DEFAULT_MEMORY_LIMIT."""
    given = os.environ.get("IRW_MEMORY_LIMIT")
    if given:
        return _checked_size(given, "IRW_MEMORY_LIMIT")
    limit = _DEFAULT_MEMORY_BYTES
    try:
        limit = min(limit, os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2)
    except (AttributeError, ValueError, OSError):
        pass
    return f"{max(limit >> 20, 256)}MiB"


def _sql_text(text: str) -> str:
    return text.replace("'", "''")


def _clean_spills(folder: Path, *, exclusive: bool) -> None:
    """Removes from FILE.tmp what killed commands left: their own spill folders (leftovers.clean:
    only a gone process's), and, when this process holds the file for writing (DuckDB lets no
    other process open it then), DuckDB's spill files of an irw that spilled into FILE.tmp itself."""
    leftovers.clean(folder, "irw-")
    if not exclusive:
        return
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    for entry in entries:
        if _DUCKDB_SPILL_FILE.fullmatch(entry.name) and entry.is_file() and not entry.is_symlink():
            try:
                entry.unlink()
            except OSError:
                pass


# the spill folders of this process's in-memory databases not closed yet (Database._limit_resources)
_MEMORY_SPILLS: set[Path] = set()


def remove_memory_spills() -> None:
    """Removes the spill folders of in-memory databases left open: for a process about to end with
    os._exit (`irw trec-eval` leaves its database open, Ctrl-C), which runs no close."""
    for folder in list(_MEMORY_SPILLS):
        shutil.rmtree(folder, ignore_errors=True)
        _MEMORY_SPILLS.discard(folder)


def default_path() -> str:
    return os.environ.get("IRW_DB") or DEFAULT_PATH


# What split_statements must see whole: a comment, a quoted string or identifier, a $name, a ';'.
_SQL_TOKEN = re.compile(r"""--[^\n]*|/\*.*?\*/|'(?:[^']|'')*'|"(?:[^"]|"")*"|\$([A-Za-z_][A-Za-z0-9_]*)|;""", re.S)


@lru_cache(maxsize=512)  # our files, and the few texts composed from them (one a call in transfer.py)
def split_statements(sql: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """The statements of SQL text of our own, each with the $names it binds: the text DuckDB's
    extract_statements gives (from the end of the previous statement to this one's ';', comments
    before it included) and its named_parameters. DuckDB's parser took ~0.05-1 ms a file, ~10 ms
    of a DL19-sized `irw trec-eval`, and every statement is parsed again when executed; this is
    a scan by one regular expression, cached per text. tests/test_sql_split.py holds it equal to
    DuckDB's on every file under sql/."""
    statements = []
    start = end = 0
    names: set[str] = set()
    code = False
    for token in _SQL_TOKEN.finditer(sql):
        code = code or not sql[end:token.start()].isspace() and token.start() > end
        end = token.end()
        text = token.group()
        if text == ";":
            if code:
                statements.append((sql[start:end], frozenset(names)))
            start, names, code = end, set(), False
        elif token.group(1):
            names.add(token.group(1))
            code = True
        elif not text.startswith(("--", "/*")):
            code = True
    if code or (len(sql) > end and not sql[end:].isspace()):
        statements.append((sql[start:], frozenset(names)))
    elif statements and start < len(sql):  # comments and blanks after the last ';' end its text
        statements[-1] = (statements[-1][0] + sql[start:], statements[-1][1])
    return tuple(statements)


def arrow_types(duckdb_types: Sequence[str] | None) -> list | None:
    """The Arrow type DuckDB itself gives each column type of a result (None for one it cannot
    give; None when there are no types): what parquet and arrow output write the column as
    (formats.table: a MAP a map, where pyarrow alone would guess a struct of every key seen; an
    all-NULL column or one of an empty result its SQL type, where pyarrow alone would say `null`).
    Asked in UTC, the zone of irw sql's sandbox, so a TIMESTAMP WITH TIME ZONE is the values' zone."""
    if not duckdb_types:
        return None
    # a HUGEINT (sum() of integers gives one) is a Python int that pyarrow makes an int64, not
    # DuckDB's decimal128(38, 0): an all-NULL one is typed as the values of one are
    return list(_arrow_types(tuple(_AS_VALUES_GIVE.get(t, t) for t in duckdb_types)))


_AS_VALUES_GIVE = {"HUGEINT": "BIGINT", "UHUGEINT": "UBIGINT"}


@lru_cache(maxsize=256)
def _arrow_types(duckdb_types: tuple[str, ...]) -> tuple:
    import duckdb as package  # the package, whose connections give Arrow (_duckdb's alone do not)

    def schema(con, types: Sequence[str]):
        # types of DuckDB's own description of a result, on a connection of nothing
        relation = con.sql("select " + ", ".join(f"cast(null as {t}) as c{i}" for i, t in enumerate(types)))
        read = getattr(relation, "to_arrow_table", None) or relation.arrow
        return [field.type for field in read().schema]

    with package.connect() as con:
        con.execute(UTC)
        try:
            return tuple(schema(con, duckdb_types))
        except package.Error:
            pass  # one type DuckDB cannot name again: each alone, that one None
        found = []
        for duckdb_type in duckdb_types:
            try:
                found.append(schema(con, [duckdb_type])[0])
            except package.Error:
                found.append(None)  # inferred from the values instead (formats.table)
        return tuple(found)


def migrations() -> list[tuple[int, str]]:
    """(version, file under sql/) for every schema migration, in order."""
    found = []
    for path in sorted((sql_dir() / "schema").iterdir()):
        match = _MIGRATION_NAME.match(path.name)
        if match and int(match.group(1)) > 0:
            found.append((int(match.group(1)), f"schema/{path.name}"))
    return found


# -- the evaluation's ranked_judged, and the view made of it ------------------------------------
# The SELECTs of the steps that prepare the built-ins' tables (sql/eval/01_qrels.sql .. 05_judged.sql,
# settings.prepare_steps) and sql/eval/08_ranked_judged.sql over them, as common table expressions:
# one ranking and one judging for the built-ins, a user measure (warehouse/evaluation/user_measures.py) and the
# view ranked_judged (sql/eval/ranked_judged_view.sql, made by migration 17).
_CREATE_AS = re.compile(r"^create temp table (\w+) as\s", re.I | re.M)
_OWN_NAME = re.compile(r"\$([A-Za-z_]\w*)")
VIEW_LINE = "-- irw: ranked_judged view"  # in sql/schema/017_ranked_judged_from_eval.sql
_EVALUATION_LINE = "-- irw: the evaluation's ranked_judged"  # in sql/eval/ranked_judged_view.sql
_POSTGRES_FENCE = "-- irw: on postgres, offset 0"  # in sql/eval/ranked_judged_view.sql
# the view's values of the evaluation's parameters: the held level's qrels set and level (p), every
# stored run, no depth, no -c, -J or --norel exclude
_VIEW_VALUES = {"qrels_set_id": "p.qrels_set_id", "level": "p.level", "complete": "false",
                "judged_only": "false", "exclude_norel": "false"}
_ALL_RUNS = re.compile(r"\(select unnest\(\$irw_run_ids\)\)")


@lru_cache(maxsize=1)
def ranked_judged_ctes() -> str:
    """`with ... ranked_judged as (...)`: the evaluation's ranked_judged, a query may follow; it
    binds $irw_* (the evaluation's parameters, named so that a user measure's own are not)."""
    from warehouse.evaluation.settings import Settings, prepare_steps

    tables = []
    for step in prepare_steps(Settings()):  # trec_eval 9.0.8's ranking, without -J
        for text, _names in split_statements(read_sql(step)):
            match = _CREATE_AS.search(text)
            if match:
                tables.append((match.group(1), text[match.end():].strip().rstrip(";")))
    shaping = read_sql("eval/08_ranked_judged.sql").splitlines()
    body = next(i for i, line in enumerate(shaping) if line.strip() and not line.startswith("--"))
    tables.append(("ranked_judged", "\n".join(shaping[body:]).strip()))
    return "with " + ",\n\n".join(f"{name} as not materialized (\n{_OWN_NAME.sub(_own, body)}\n)"
                                   for name, body in tables)


def _own(match: re.Match) -> str:
    return "$irw_" + match.group(1)


@lru_cache(maxsize=1)
def ranked_judged_view() -> str:
    """`create view ranked_judged as ...`: sql/eval/ranked_judged_view.sql with ranked_judged_ctes()
    in it, each of the evaluation's parameters given the view's value (_VIEW_VALUES); two
    statements, DuckDB's and PostgreSQL's (its lateral subquery fenced with offset 0)."""
    from warehouse.evaluation.settings import NO_DEPTH

    ctes = _ALL_RUNS.sub("(select run_id from runs)", ranked_judged_ctes())
    values = {**_VIEW_VALUES, "depth": str(NO_DEPTH)}

    def value(match: re.Match) -> str:
        name = match.group(1).removeprefix("irw_")
        if name not in values:
            raise RuntimeError(f"sql/eval's ${name} has no value in the view ranked_judged (warehouse/engines/duckdb.py)")
        return values[name]

    ctes = re.sub(r"\$(irw_\w+)", value, ctes)
    template = read_sql("eval/ranked_judged_view.sql")
    lines = template.split("\n")
    places = [i for i, line in enumerate(lines) if line.strip() == _EVALUATION_LINE]
    if len(places) != 1:
        raise RuntimeError(f"sql/eval/ranked_judged_view.sql holds the line {_EVALUATION_LINE!r} once, not "
                           f"{len(places)} times")
    indent = lines[places[0]][:lines[places[0]].index("--")]
    lines[places[0]] = "\n".join(indent + line if line.strip() else "" for line in ctes.splitlines())
    text = "\n".join(lines)
    text = text[text.index("\ncreate view") + 1:].rstrip().rstrip(";")
    fence = [line for line in text.split("\n") if line.strip() == _POSTGRES_FENCE]
    if len(fence) != 1:
        raise RuntimeError(f"sql/eval/ranked_judged_view.sql holds the line {_POSTGRES_FENCE!r} once")
    duckdb_text = "\n".join(line for line in text.split("\n") if line.strip() != _POSTGRES_FENCE)
    postgres_text = text.replace(fence[0], fence[0].replace(_POSTGRES_FENCE, "offset 0"))
    return (f"-- {DUCKDB_ONLY} (the view as sql/eval/ranked_judged_view.sql says)\n{duckdb_text};\n\n"
            f"-- {POSTGRES_ONLY} (the view, its lateral subquery fenced with offset 0)\n{postgres_text}")


def migration_sql(relative_path: str) -> str:
    """A migration file's text as irw runs it: the line VIEW_LINE followed by the view ranked_judged
    (ranked_judged_view), so that the view is made of the evaluation's SQL of this irw."""
    text = read_sql(relative_path)
    if VIEW_LINE not in text:
        return text
    return "\n".join(f"{line}\n{ranked_judged_view()};" if line == VIEW_LINE else line
                     for line in text.split("\n"))


# The views a migration makes of files under sql/ that change without a migration: ranked_judged
# (017: sql/eval's ranking and judging, VIEW_LINE) and run_summary (018: the summary rule,
# sql/eval/summary_rule.sql, composed by read_sql). A warehouse stores the text as it was when the
# migration ran; a writable open whose files make it otherwise makes it again (remake_views).
REMADE_VIEWS = ("ranked_judged", "run_summary")


def stale_views(labels: Sequence[str]) -> list[str]:
    """The REMADE_VIEWS that what an open found foreign (foreign_objects, postgres._foreign) names,
    as the view or one of its columns: a view an irw makes of its own files under sql/, which
    another irw's files make otherwise."""
    return [view for view in REMADE_VIEWS
            if any(label == f"view {view}" or label.startswith((f"view {view} (", f"column {view}."))
                   for label in labels)]


def only_stale_views(labels: Sequence[str]) -> bool:
    return bool(labels) and all(stale_views([label]) for label in labels)


def remake_views(db, views: Sequence[str]) -> None:
    """Makes the views `views` (of REMADE_VIEWS) again as this irw makes them, in one transaction,
    when a writable open finds them made otherwise: an irw of other files under sql/ made them.
    Dropping a view runs nothing of it; it is made again only once a migration that makes it is
    applied, by the statements of the latest such migration, as this irw composes them."""
    applied = _applied_versions(db)
    with db.transaction():
        db.lock_migrations()
        for view in views:
            if view not in REMADE_VIEWS:
                raise ValueError(f"{view} is not a view irw makes again")
            db.execute(f"drop view if exists {view}")
            if view == "ranked_judged":
                if any(VIEW_LINE in read_sql(path).split("\n") for version, path in migrations() if version in applied):
                    db.run_sql(ranked_judged_view())
                continue
            making = [path for version, path in migrations() if version in applied and _view_statements(path, view)]
            if making:
                db.run_sql(_view_statements(making[-1], view))


def _view_statements(relative_path: str, view: str) -> str:
    """The statements of a migration (as irw runs it) that create the view `view`, each with its
    comments (a dialect's marker among them), or '' when it makes no such view."""
    creates = re.compile(rf"^\s*create\s+(?:or\s+replace\s+)?view\s+{view}\b", re.I | re.M)
    found = [text for text, _names in split_statements(migration_sql(relative_path))
             if creates.search("\n".join(line for line in text.split("\n") if not line.lstrip().startswith("--")))]
    return ";\n".join(text.rstrip().rstrip(";") for text in found) + (";\n" if found else "")


def stale_view_message(path: str, views: Sequence[str] = ("ranked_judged",)) -> str:
    from warehouse.formats.escaping import shell_word

    views = list(views) or ["ranked_judged"]
    named = (f"view {views[0]} was" if len(views) == 1 else f"views {', '.join(views[:-1])} and {views[-1]} were")
    return (f"cannot open warehouse {path} to read only: its {named} made by an irw of other "
            f"sql/eval files than this one's; make it again with `irw migrate --db {shell_word(path)}` (commands that "
            "write, such as `irw eval` and `irw ingest`, make it again too)")


class Database(Statements):
    """One open warehouse file: its DuckDB connection, and a SQLAlchemy engine over it on request."""

    dialect = "duckdb"  # the engine seam (warehouse/engines/__init__.py): PostgresDatabase says "postgres"
    read_statements = "SELECT (or PIVOT, or EXPLAIN of one)"
    # A warehouse keeps what it computes: an evaluation finds what is stored, computes only what is
    # missing, and records it (sql/eval/evaluated_already.sql, record_evaluated.sql). A database
    # made to evaluate once (warehouse/evaluation/oneshot.py) holds nothing before and is read once after.
    keeps_scores = True
    # the capabilities warehouse/engines/__init__.py's WarehouseEngine states
    batches_runs = True
    sandbox_in_process = True
    text_holds_nul = True
    writes_parquet = True
    read_only_reason: str | None = None  # a file is read-only only when opened so (PostgreSQL's role may make it so)
    upgraded: tuple[int, int] | None = None
    # a new file starts as a copy of the empty warehouse kept in the user's cache (empty_warehouse)
    copies_empty_warehouse = True

    def __init__(self, path: str | os.PathLike[str] = DEFAULT_PATH, *, read_only: bool = False,
                 create: bool = True, sandboxed: bool = False):
        """create=False (and read_only) refuse a missing file instead of creating an empty warehouse.

        sandboxed=True opens only the sandbox (see the module docstring): every statement, irw's
        own included, runs read-only without access to anything outside the warehouse. `irw sql`
        opens its warehouse so.
        """
        self.path = _checked_path(path)
        memory_limit()  # a limit that is not a size is refused before any file is made
        self.sandboxed = sandboxed
        self.read_only = read_only or sandboxed
        self.created = False  # this open created the file (a failed command removes it again)
        self._con: duckdb.DuckDBPyConnection | None = None
        self._mode: str | None = None  # "full" or "sandbox": which connection _con is
        self._engine = None
        self._closed = False
        self._new_dirs: list[Path] = []
        self._protected = False  # registered with output.protect: no output path may be this file
        self._spill: Path | None = None  # this open's folder for DuckDB's spill files (_spill_folder)
        self._sandbox_spill: Path | None = None  # its sandbox's (_sandbox_spill_acquire)
        self._spill_memory: Path | None = None  # an in-memory database's (_limit_resources)
        if self.path == MEMORY:
            if sandboxed:
                raise WarehouseOpenError("a sandboxed warehouse reads a file; an in-memory one would be empty")
        elif not _existing_warehouse_file(self.path):
            if self.read_only or not create:
                raise WarehouseNotFound(
                    f"no warehouse at {self.path}; create one with `irw ingest` or pass --db / IRW_DB")
            self._make_parent_dirs()
            self.created = True
        try:
            if self.path != MEMORY:
                output.protect(self.path)
                self._protected = True
            copied = self.created and self.copies_empty_warehouse and _copy_empty_warehouse(self.path)
            self._connect("sandbox" if sandboxed else "full")
            if copied:  # its migrations were applied to this file now
                self._con.execute("update irw_schema set applied_at = current_timestamp")
            if self.path != MEMORY and not self.created:  # a new database holds nothing of anyone's
                self._check_is_warehouse()
                self._check_objects()
            self._migrate()
        except BaseException as exc:
            # Left open, the file stays attached in this process and every later open of it with
            # other options (read_only) fails with DuckDB's "different configuration" error.
            self.discard()
            if isinstance(exc, duckdb.Error):
                raise failure(self.path, exc) from None
            raise

    # -- connections -------------------------------------------------------------------------
    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The full-access connection (reopened if the sandbox was last used)."""
        if self._closed:
            raise WarehouseClosed(f"the warehouse {self.path} was closed; open it again with warehouse.open()")
        if self._mode != "full" and not self.sandboxed:
            self._switch("full")
        return self._con

    @contextmanager
    def sandbox(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A connection that can read the warehouse and nothing else, enforced by DuckDB.

        For a file, the full-access connection is closed and the file opened again read-only with
        SANDBOX_CONFIG; the sandbox stays open until the full-access connection is needed again,
        so a run of queries pays one switch (~10 ms each way on a small file; DuckDB checkpoints
        the file when the writer closes). An open transaction on the full-access connection is
        refused rather than rolled back by the switch. In the gap between the two connections
        another process may take the file: the next use then reports the lock.

        Measured alternatives (DuckDB 2.0.1): locking down the full-access connection is one-way
        (enable_external_access cannot be turned back on, and ingest needs it); a second
        connection to the same file with the sandbox settings fails ("different configuration");
        a fresh in-memory sandbox cannot ATTACH the file ("Unique file handle conflict"), and
        copying a file warehouse into one costs its size. An in-memory warehouse has no file to
        reopen, so it is copied (COPY FROM DATABASE, tables, views and macros) into a temporary
        file that the sandbox opens and that is deleted afterwards: in /dev/shm where there is
        one, as the warehouse itself is in memory (on a disk, DuckDB would also sync the file for
        every query).
        """
        if self._closed:
            raise WarehouseClosed(f"the warehouse {self.path} was closed; open it again with warehouse.open()")
        if self.path != MEMORY:
            if self._mode != "sandbox":
                self._switch("sandbox")
            yield self._con
            return
        folder = tempfile.mkdtemp(prefix="irw-sql-", dir=_memory_backed_folder())
        snapshot = os.path.join(folder, "snapshot.duckdb")
        try:
            try:
                source = self.con.execute("select current_database()").fetchone()[0]
                # Our own temporary path, quoted: ATTACH takes no bound parameters.
                self.con.execute("attach '" + snapshot.replace("'", "''") + "' as irw_sql_snapshot")
                try:
                    self.con.execute(f'copy from database "{source}" to irw_sql_snapshot')
                finally:
                    self.con.execute("detach irw_sql_snapshot")
            except duckdb.Error as exc:
                raise failure(self.path, exc) from None
            con = _connect_sandbox(snapshot)
            try:
                yield con
            finally:
                con.close()
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _switch(self, mode: str) -> None:
        if self._con is not None:
            if self._mode == "full" and not self.read_only:
                _refuse_open_transaction(self._con)
            self._drop_connection()
        self._connect(mode)

    def _connect(self, mode: str) -> None:
        target = self.path if self.path == MEMORY else str(Path(self.path).resolve())
        try:
            if mode == "sandbox":
                spill = _sandbox_spill_acquire(target) if self.path != MEMORY else None
                try:
                    with output.FILE_OPENING:
                        con = _connect_sandbox(target, spill)
                except BaseException:
                    _sandbox_spill_release(spill)
                    raise
                self._sandbox_spill = spill
            else:
                with output.FILE_OPENING:
                    con = _connect_settled(target, read_only=self.read_only)
                # DuckDB draws its own progress bar on stdout, which carries data here; irw shows
                # progress on stderr.
                try:
                    con.execute("set enable_progress_bar = false")
                    con.execute(UTC)
                    self._limit_resources(con)
                except BaseException:
                    con.close()
                    raise
        except duckdb.Error as exc:
            raise _open_failure(self.path, exc, read_only=self.read_only or mode == "sandbox") from None
        self._con, self._mode = con, mode
        interrupt.register(con)  # Ctrl-C in the irw command interrupts its query

    def _limit_resources(self, con: duckdb.DuckDBPyConnection) -> None:
        """DuckDB's memory_limit (memory_limit(): what no input can make irw's DuckDB exceed; past
        it DuckDB spills to disk) and, for a file, its spill folder: one of this process's own in
        FILE.tmp (spill_folder), so what a killed command spilled is found and removed by the next
        one (warehouse/leftovers.py)."""
        con.execute(f"set memory_limit = '{memory_limit()}'")
        temp_limit = os.environ.get("IRW_TEMP_LIMIT")
        if temp_limit:
            con.execute(f"set max_temp_directory_size = '{_checked_size(temp_limit, 'IRW_TEMP_LIMIT')}'")
        if self.path == MEMORY:
            # DuckDB's default for an in-memory database is ./.tmp, in the user's folder: a folder
            # named as warehouse/leftovers.py names them instead, made by DuckDB only if it spills
            # (so `irw trec-eval` makes nothing), removed at close or, after a kill, by the next
            # command that opens a warehouse file
            self._spill_memory = Path(tempfile.gettempdir()) / f"irw-spill-{os.getpid()}-{os.urandom(4).hex()}"
            _MEMORY_SPILLS.add(self._spill_memory)
            con.execute(f"set temp_directory = '{_sql_text(str(self._spill_memory))}'")
            return
        folder = self._spill_folder()
        if folder is not None:
            con.execute(f"set temp_directory = '{_sql_text(str(folder))}'")

    def _spill_folder(self) -> Path | None:
        """This open's own folder in FILE.tmp for DuckDB's spill files, made on first use and
        removed at close; what killed commands left there removed first. None when FILE.tmp cannot
        be made (a read-only folder): DuckDB then spills where it would."""
        if self._spill is not None:
            return self._spill
        parent = Path(str(Path(self.path).resolve()) + ".tmp")
        try:
            parent.mkdir(exist_ok=True)
        except OSError:
            return None
        _clean_spills(parent, exclusive=not self.read_only)
        leftovers.clean_once(tempfile.gettempdir(), "irw-spill-")  # in-memory databases' (above)
        try:
            self._spill = leftovers.make_held_folder(parent, "irw-")
        except OSError:
            return None
        return self._spill

    def _drop_connection(self) -> None:
        try:
            if self._engine is not None:
                # The pool lets go of its connection; the next checkout reopens through self.con.
                self._engine.dispose()
        finally:
            con, self._con, self._mode = self._con, None, None
            spill, self._sandbox_spill = self._sandbox_spill, None
            if con is not None:
                interrupt.unregister(con)
                con.close()
            _sandbox_spill_release(spill)

    @property
    def engine(self):
        """A SQLAlchemy engine (duckdb-engine dialect) whose one connection is self.con: full
        access, as irw's own code has (it can write the warehouse, read and write files and load
        extensions). It is not a sandbox: SQL from other people goes through Warehouse.sql."""
        if self._engine is None:
            import sqlalchemy as sa
            from duckdb_engine import ConnectionWrapper

            self._engine = sa.create_engine("duckdb://", creator=lambda: ConnectionWrapper(self.con),
                                            poolclass=sa.pool.StaticPool)
        return self._engine

    # -- statements --------------------------------------------------------------------------
    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] | None = None):
        return self.con.execute(sql, params) if params is not None else self.con.execute(sql)

    def run_sql(self, sql: str, params: dict[str, Any] | None = None):
        """Runs SQL text of our own (never user input), each statement bound to the $names it uses."""
        result = None
        for query, names in split_statements(sql):
            if POSTGRES_ONLY in query:
                continue  # see warehouse/engines/dialect.py
            if names:
                result = self.con.execute(query, {name: (params or {})[name] for name in names})
            else:
                result = self.con.execute(query)
        return result

    def load_rows(self, table: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[Any]]) -> None:
        """Replaces temporary table `table` (a name of irw's own, never user input) with `rows`.

        This is how parameters that are lists of records reach SQL files on every engine (measure
        parameters, the measures a summary reads): a table both DuckDB and PostgreSQL read the same
        way. `columns` are (name, portable type) pairs: integer, bigint, double, varchar, boolean."""
        definition = ", ".join(f"{name} {kind}" for name, kind in columns)
        self.execute(f"drop table if exists {table}")
        self.execute(f"create temp table {table} ({definition})")
        if rows:
            # One statement binding a list per column, unnested side by side: executemany runs a
            # statement per row (~1 ms each: 73 ms for 107 measures, against 2.5 ms this way).
            lists = ", ".join(f"unnest(?) as {name}" for name, _ in columns)
            self.con.execute(f"insert into {table} select {lists}",
                             [[row[i] for row in rows] for i in range(len(columns))])

    def frame_connection(self) -> duckdb.DuckDBPyConnection:
        """An in-memory connection of its own (not this database's) that reads the data frames
        (pandas, polars, Arrow) registered in it and writes them as files (warehouse/ingestion/frames.py, on a
        warehouse's staging database): external access on, no extension loaded or installed."""
        _load_python_scans()
        # a pandas column of Python objects is typed from every value, not DuckDB's first 1,000: a
        # score column of numbers with a text further down was read as DOUBLE and failed at that row
        # with DuckDB's own cast error, where the file's rules name the row and its value
        return duckdb.connect(MEMORY, config={"enable_external_access": True, "autoload_known_extensions": False,
                                              "autoinstall_known_extensions": False,
                                              "pandas_analyze_sample": 2**62})

    @contextmanager
    def registered(self, name: str, rows: Any) -> Iterator[None]:
        """rows (an Arrow table, a data frame) readable as the view `name` of this database while the
        block runs (a name of irw's own)."""
        _load_python_scans()
        self.con.register(name, rows)
        try:
            yield
        finally:
            self.con.unregister(name)

    def has_table(self, name: str) -> bool:
        """A table (temporary or not) of that name exists."""
        return bool(self.fetchone("select count(*) from duckdb_tables() where table_name = ?", [name])[0])

    def statements(self, sql: str) -> tuple[tuple[str, frozenset[str]], ...]:
        """The statements of SQL text of our own as this engine runs them, each with the $names it binds."""
        return split_statements(sql)

    def copy_out(self, sql: str, params, csv_path: str) -> None:
        """Writes a query's rows (irw's own SQL) to a headerless CSV file."""
        # The path is ours (a private temporary folder): COPY takes no parameter for it.
        quoted = "'" + csv_path.replace("'", "''") + "'"
        self.run_sql(f"copy ({sql}) to {quoted} (format csv, header false)", params)

    def copy_in(self, table: str, columns: Sequence[str], csv_path: str) -> None:
        """Appends a headerless CSV file's rows (as copy_out writes them) to a table."""
        quoted = "'" + csv_path.replace("'", "''") + "'"
        # The dialect is the one both engines write (RFC 4180 quoting); nothing is guessed. Both write
        # NULL as nothing and an empty text as "", which DuckDB would read as NULL by default.
        self.execute(f"copy {table} ({', '.join(columns)}) from {quoted} "
                     "(format csv, header false, delimiter ',', quote '\"', escape '\"', auto_detect false, "
                     "allow_quoted_nulls false)")

    @property
    def identity(self) -> tuple[str, str]:
        """Two opens of one warehouse file have the same identity (the file's real path)."""
        return (self.dialect, os.path.realpath(self.path))

    @property
    def files(self) -> list[str]:
        """The files the warehouse lives in: its file and its WAL (none in memory)."""
        if not self.path or self.path == MEMORY:
            return []
        return [self.path, self.path + ".wal"]

    def error_of(self, error: BaseException) -> IrwError | None:
        """The IrwError that says what a DuckDB error met in a block working on the warehouse means
        (failure: a damaged file, a full disk ...); None for an error that is not DuckDB's."""
        return failure(self.path, error) if isinstance(error, duckdb.Error) else None

    def refresh_statistics(self, kind: str) -> None:
        """Nothing to do: DuckDB keeps its tables' statistics as it writes them."""

    def snapshot(self) -> "_Transaction":
        """One consistent state of every table for as long as it lasts: a transaction that only
        reads, so it takes no writer lock (readers in other threads never wait for one another)."""
        return _Transaction(self.con, self.path)

    def lock_scores(self, qrels_set_id: int) -> None:
        """Called in the transaction that stores an evaluation's scores: nothing to do, as one
        process at a time writes a DuckDB file and, in it, one thread at a time (transaction()
        took the file's writer lock before the transaction began; a server warehouse serialises
        writers here)."""

    def release_memory(self) -> None:
        """Lets go of the table blocks DuckDB keeps from earlier statements. It keeps every block it
        read until its memory_limit is reached, so a command that reads the runs a batch at a time
        (a cold leaderboard of 10,000 runs) held them all by its end, ~0.7 GB, though each batch
        reads only its own: the limit is lowered to what DuckDB holds besides them, which evicts
        them, then set back. Where that much cannot be freed, nothing changes."""
        con = self.con
        held = con.execute("select coalesce(sum(memory_usage_bytes), 0) from duckdb_memory() "
                           "where tag <> 'BASE_TABLE'").fetchone()[0]
        try:
            con.execute(f"set memory_limit = '{(int(held) >> 20) + 64}MiB'")
        except duckdb.Error:
            pass
        finally:
            con.execute(f"set memory_limit = '{memory_limit()}'")

    @property
    def staging(self) -> "Database":
        """Where files are read and validated before their rows are stored: this database itself
        (a PostgreSQL warehouse stages in a local DuckDB one, warehouse/engines/postgres.py)."""
        return self

    def transaction(self) -> "_Transaction":
        """A transaction of irw's writes. On a file it first takes this process's writer lock of
        the file (_writer_lock), so writers in several threads of one process take turns, as
        writers in several processes do by DuckDB's file lock."""
        writes = self.path != MEMORY and not self.read_only
        return _Transaction(self.con, self.path, _writer_lock(self.path) if writes else None)

    def close(self) -> None:
        self._closed = True
        try:
            self._drop_connection()
        finally:
            if self._protected:
                self._protected = False
                output.unprotect(self.path)
            if self._spill_memory is not None:
                shutil.rmtree(self._spill_memory, ignore_errors=True)
                _MEMORY_SPILLS.discard(self._spill_memory)
                self._spill_memory = None
            if self._spill is not None:
                spill, self._spill = self._spill, None
                leftovers.remove_held_folder(spill)
                try:
                    spill.parent.rmdir()  # FILE.tmp, unless another process spills there
                except OSError:
                    pass

    def discard(self) -> None:
        """Closes the warehouse, and deletes its file if this open created it and it holds no
        data: a command that fails before storing anything leaves no new empty warehouse behind."""
        remove = False
        # Only a file this object opened (and so held DuckDB's lock on) and found empty: a file
        # whose open failed may be another process's, created in the meantime.
        if self.created and self._con is not None and not self._closed:
            try:  # a transaction a Ctrl-C cut is left aborted, and refuses every query until rolled back
                self._con.execute("rollback")
            except duckdb.Error:
                pass  # none was open
            for _ in range(2):  # a Ctrl-C's interrupt (warehouse/interrupt.py) may meet the first query
                try:
                    remove = self._holds_no_data()
                    break
                except (duckdb.Error, IrwError, RuntimeError):
                    remove = False
                    if not interrupt.requested.is_set():
                        break
        try:
            self.close()
        finally:
            if remove:
                for leftover in (self.path, self.path + ".wal"):
                    try:
                        os.unlink(leftover)
                    except FileNotFoundError:
                        pass
                for folder in reversed(self._new_dirs):
                    try:
                        folder.rmdir()
                    except OSError:
                        break

    def _holds_no_data(self) -> bool:
        tables = [r[0] for r in self._con.execute(
            "select table_name from duckdb_tables() where database_name = current_database() "
            "and schema_name = 'main' and table_name <> 'irw_schema'").fetchall()]
        return all(self._con.execute(f'select count(*) = 0 from "{t}"').fetchone()[0] for t in tables)

    def _make_parent_dirs(self) -> None:
        missing = []
        folder = Path(self.path).absolute().parent
        while not folder.exists() and folder != folder.parent:
            missing.append(folder)
            folder = folder.parent
        try:
            Path(self.path).absolute().parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise WarehouseOpenError(f"cannot create warehouse {self.path}: cannot create its folder "
                                     f"({exc.strerror or exc})") from None
        self._new_dirs = list(reversed(missing))

    # -- schema ------------------------------------------------------------------------------
    def schema_version(self) -> int:
        row = self.fetchone(  # duckdb_tables(): half the time of information_schema.tables
            "select count(*) from duckdb_tables() where database_name = current_database() "
            "and schema_name = 'main' and table_name = 'irw_schema'"
        )
        if not row[0]:
            return 0
        return self.fetchone("select coalesce(max(version), 0) from irw_schema")[0]

    def _check_is_warehouse(self) -> None:
        """A DuckDB database that is not empty and has no irw_schema is someone else's: refused,
        so irw never adds its tables to it (an empty one becomes a warehouse, as a new file does)."""
        con = self._con
        if con.execute("select count(*) from duckdb_tables() where database_name = current_database() "
                       "and schema_name = 'main' and table_name = 'irw_schema'").fetchone()[0]:
            return
        objects = [r[0] for r in con.execute(
            "select name from ("
            " select schema_name, table_name as name from duckdb_tables() where database_name = current_database()"
            " union all select schema_name, view_name from duckdb_views()"
            "  where database_name = current_database() and not internal"
            " union all select schema_name, sequence_name from duckdb_sequences() where database_name = current_database()"
            " union all select schema_name, function_name from duckdb_functions()"
            "  where database_name = current_database() and not internal"
            "   and function_type in ('macro', 'table_macro')"
            ") order by name limit 6").fetchall()]
        if objects:
            shown = ", ".join(objects[:5]) + (", ..." if len(objects) > 5 else "")
            raise NotAWarehouse(
                f"cannot open warehouse {self.path}: it is a DuckDB database but not an irw warehouse "
                f"(it holds {shown} and no irw_schema table); irw does not add its tables to another "
                "database: pass the path of an irw warehouse, or a new file name to create one")

    def _check_objects(self) -> None:
        """Refuses a warehouse file holding an object irw's migrations did not make (see
        foreign_objects): a view, macro, default or index of someone else's would run in every
        command that reads the warehouse, and could read files or the network. A file found clean
        is not searched again while its bytes are the same (_file_state), by this process or, as
        the user's cache keeps it (kept_clean_files), by a later command."""
        state = _file_state(self.path)
        if state is not None and (state in _CLEAN_FILES or state in kept_clean_files()):
            _CLEAN_FILES.add(state)
            return
        strange = foreign_objects(self._con)
        if not strange and state is not None:
            _CLEAN_FILES.add(state)
            keep_clean_file(state)
        if strange:
            refuse_a_newer_schema(self, strange, self._con.execute)
        if stale_views(strange) and not self.read_only:
            remake_views(self, stale_views(strange))
            strange = foreign_objects(self._con)
        if only_stale_views(strange):
            raise SchemaVersionError(stale_view_message(self.path, stale_views(strange)))
        if strange:
            shown = "; ".join(strange[:5]) + (f"; and {len(strange) - 5} more" if len(strange) > 5 else "")
            raise NotAWarehouse(
                f"cannot open warehouse {self.path}: it holds what irw's migrations did not make ({shown}); irw "
                "reads only its own tables and views, as others' could read files or the network when read. "
                "If you trust its author, drop or restore those objects with DuckDB; else ask for the run "
                "and qrels files instead")

    def _migrate(self) -> None:
        apply_migrations(self)

    def outdated(self, current: int, latest: int, missing: list[int]) -> str:
        """What a read-only open of a warehouse that lacks migrations says (apply_migrations)."""
        from warehouse.formats.escaping import shell_word

        message = (f"{self.path} has schema version {current} and needs migrating to {latest}; "
                   f"upgrade it with `irw migrate --db {shell_word(self.path)}` (commands that write, such as "
                   "`irw eval` and `irw ingest`, upgrade it too); an older irw cannot open it then, so copy the "
                   f"file first (`cp {shell_word(self.path)} {shell_word(self.path + f'.schema{current}')}`) if "
                   "one still needs it")
        folder = os.path.dirname(os.path.abspath(self.path))
        if not (os.access(self.path, os.W_OK) and os.access(folder, os.W_OK)):
            # a migration rewrites the file beside itself: a copy of it is what such a user can upgrade
            copy = shell_word(os.path.join(tempfile.gettempdir(), os.path.basename(self.path)))
            message += (f"; you may not write it or its folder: upgrade a copy (`cp {shell_word(self.path)} {copy}`, "
                        f"then `irw migrate --db {copy}`) or ask its owner to run `irw migrate`")
        return message

    def lock_migrations(self) -> None:
        """Called in the transaction that migrates: nothing to do, as one process at a time writes a
        DuckDB file and, in it, one thread at a time (transaction()'s writer lock; a server
        warehouse serialises clients here)."""


def latest_schema_version(known: Sequence[tuple[int, str]] | None = None) -> int:
    """The schema version this irw's migrations (known, else migrations()) make."""
    known = migrations() if known is None else known
    return known[-1][0] if known else 0


def _refuse_newer(db, current: int, latest: int) -> None:
    if current > latest:
        raise SchemaVersionError(
            f"{db.path} has schema version {current}, newer than this irw understands ({latest}): a newer irw "
            "wrote it; upgrade irw to open it (`irw --version` says which schema an irw understands)")


def refuse_a_newer_schema(db, strange: Sequence[str], execute: Callable[[str], Any]) -> None:
    """Refuses a warehouse a newer irw migrated, before the objects its migrations made are called
    someone else's (foreign_objects) or this irw remakes a view of it (remake_views): its tables
    and views are a newer irw's, and the way out is to upgrade irw, not to drop them. The versions
    are read from irw_schema only when nothing of irw_schema itself is strange: a table of irw's
    own definition, whose select runs nothing of anyone's. execute: the execute of the connection
    the open checks (a sandbox's on DuckDB: Database.con would open the full-access one)."""
    if any("irw_schema" in label for label in strange):
        return
    versions = execute("select version from irw_schema").fetchall()
    _refuse_newer(db, max((row[0] for row in versions), default=0), latest_schema_version())


def apply_migrations(db) -> None:
    """Brings a warehouse's schema (DuckDB's Database or PostgresDatabase) to this irw's: refuses a
    newer one, refuses a read-only open that lacks migrations (db.outdated says how to upgrade),
    else applies every missing migration in one transaction. Missing versions are applied even
    below the newest one (two lines of work may add migrations in either order), and are read
    again under db.lock_migrations(), where a second client finds the first's work done."""
    known = migrations()
    latest = latest_schema_version(known)
    applied = _applied_versions(db)
    current = max(applied, default=0)  # db.schema_version(), without reading the catalogue again
    _refuse_newer(db, current, latest)
    missing = [v for v, _ in known if v not in applied]
    if not missing:
        return
    if db.read_only:
        raise SchemaVersionError(db.outdated(current, latest, missing))
    ran = False
    with db.transaction():
        db.lock_migrations()
        db.run_file("schema/000_schema_version.sql")
        applied = _applied_versions(db)
        for version, relative_path in known:
            if version not in applied:
                db.run_sql(migration_sql(relative_path))
                db.execute("insert into irw_schema (version, name) values (?, ?)", [version, relative_path])
                ran = True
    if current and ran:
        db.upgraded = (current, latest)


# -- what irw's migrations make -----------------------------------------------------------------
# One row per object and per part of one that holds an expression, as DuckDB itself writes it:
# (kind, schema, name, what). Column defaults and generated columns, CHECK constraints, index
# expressions, view, macro and trigger bodies are compared whole (irw makes no trigger: DuckDB 2.0's
# run in irw's own writes, with its full access).
_OBJECTS_SQL = """
select 'table', schema_name, table_name, '' from duckdb_tables() where database_name = current_database()
union all select 'column', schema_name, table_name, column_name || ' ' || data_type || ' default ' || coalesce(column_default, '')
  from duckdb_columns() where database_name = current_database()
union all select 'constraint', schema_name, table_name, constraint_type || ' ' || coalesce(expression, '')
  from duckdb_constraints() where database_name = current_database() and constraint_type = 'CHECK'
union all select 'view', schema_name, view_name, sql from duckdb_views() where database_name = current_database() and not internal
union all select 'sequence', schema_name, sequence_name, '' from duckdb_sequences() where database_name = current_database()
union all select function_type, schema_name, function_name, coalesce(macro_definition, '')
  from duckdb_functions() where database_name = current_database() and not internal
union all select 'index', schema_name, index_name, coalesce(sql, '') from duckdb_indexes() where database_name = current_database()
union all select 'type', schema_name, type_name, '' from duckdb_types() where database_name = current_database() and not internal
union all select 'trigger', schema_name, trigger_name, coalesce(sql, '') from duckdb_triggers() where database_name = current_database()
"""


# Warehouse files (as _file_state identifies their bytes) in which this process found nothing
# foreign: listing a database's objects reads every function DuckDB has (duckdb_functions(), ~3,300
# rows), 57% of opening DL19's warehouse and a quarter of a page `irw serve` answers (0.038 of
# 0.157 s), which opens the file for every request.
_CLEAN_FILES: set[tuple] = set()
# How many clean files the user's cache remembers for later commands (kept_clean_files): the
# newest, so a file worked on every day stays in it; each is a line of ~100 bytes.
_KEPT_CLEAN_FILES = 200
# A file changed this recently is searched every time: a file system's clock may be as coarse as
# this (FAT's 2 s), and two writes within one of its ticks can leave the same size and times
_SETTLED_SECONDS = 2.0


def _file_state(path: str | os.PathLike[str]) -> tuple | None:
    """What identifies a warehouse file's bytes while this process holds it open (DuckDB's lock
    keeps every other process from writing it meanwhile): its inode, size and change times, which
    every write moves on (the change time cannot be set back by a user). None, so that the file
    is searched every time, when it changed in the last _SETTLED_SECONDS, when a write-ahead log
    beside it holds changes not yet in the file, or when it cannot be examined.
    Only stat: opening and closing the file here would drop DuckDB's lock on it (POSIX record
    locks belong to the process and go with any close of the file)."""
    import time

    try:
        if os.path.lexists(f"{path}.wal"):
            return None
        info = os.stat(path)
    except OSError:
        return None
    if time.time_ns() - info.st_ctime_ns < _SETTLED_SECONDS * 1e9:
        return None
    return (os.path.realpath(path), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def foreign_objects(con: duckdb.DuckDBPyConnection) -> list[str]:
    """What the database on con holds that no version of irw's migrations makes, as `kind name`
    lines: an object of a name irw never uses, or one of irw's names defined otherwise (a view
    whose body is not a migration's, a column default or a macro of someone else's)."""
    known = known_objects()
    found = []
    for kind, schema, name, what in con.execute(_OBJECTS_SQL).fetchall():
        if (kind, schema, name, what) not in known:
            label = f"{kind} {name}" if schema == "main" else f"{kind} {schema}.{name}"
            if kind in ("column", "constraint"):
                label = f"{kind} {name}.{what.split(' ', 1)[0]}" if kind == "column" else f"a CHECK on {name}"
            elif (kind, schema, name) in {(k, s, n) for k, s, n, _ in known}:
                label += " (not irw's definition)"
            if label not in found:
                found.append(label)
    return found


def _clean_files_record() -> Path | None:
    """Where the user's cache keeps the warehouse files found clean: in a folder only the user may
    write (resources.private_cache_folder), as a file named by what the search compares with
    (known_objects), so another irw or DuckDB searches every file again."""
    from warehouse.resources import private_cache_folder

    folder = private_cache_folder("clean-warehouses")
    return None if folder is None else folder / f"{_known_objects_digest()}.json"


def kept_clean_files() -> frozenset[tuple]:
    """The _file_state of every warehouse file an earlier command of this user found clean (keep_clean_file):
    each command is a process of its own, and the search took ~20 ms of every one (a third of
    opening a warehouse). The state holds the file's change time, which any write moves on and no
    user can set back, and is kept only for a file unchanged for _SETTLED_SECONDS."""
    record = _clean_files_record()
    return frozenset() if record is None else frozenset(_recorded_states(record))


def _recorded_states(record: Path) -> list[tuple]:
    """The file states a clean-files record holds, oldest first; none where it is missing or is
    not one (a record half written by a killed process, or written by hand)."""
    import json

    try:
        return [tuple(state) for state in json.loads(record.read_text(encoding="utf-8"))]
    except (OSError, ValueError, TypeError):
        return []


def keep_clean_file(state: tuple) -> None:
    """Adds state to what kept_clean_files reads (the newest _KEPT_CLEAN_FILES), written whole
    under a name of this process's own and renamed into place; a record that cannot be written
    is left, and the next command searches the file again. The records of other irw or DuckDB
    versions are removed when unchanged for as long as an unused empty warehouse is kept, and
    what a killed process left half written after an hour."""
    import json
    import time

    record = _clean_files_record()
    if record is None:
        return
    # read again, not kept_clean_files' reading: another command may have added a file since
    kept = [list(s) for s in _recorded_states(record) if s != state]
    partial = record.with_name(f".{record.name}.{os.getpid()}-{os.urandom(4).hex()}")
    try:
        partial.write_text(json.dumps([*kept[-(_KEPT_CLEAN_FILES - 1):], list(state)]), encoding="utf-8")
        os.replace(partial, record)
        now = time.time()
        for other in record.parent.iterdir():
            age = now - other.stat().st_mtime
            if other.name != record.name and age > (_LEFT_HALF_MADE_SECONDS if other.name.startswith(".")
                                                    else _UNUSED_EMPTY_WAREHOUSE_SECONDS):
                other.unlink()
    except OSError:
        try:
            partial.unlink()
        except OSError:
            pass


def _known_objects_digest() -> str:
    """What names known_objects' rows and the clean files found with them (~0.15 ms: not cached, as a
    test that patches the migrations' files needs it worked out again)."""
    return _migrations_digest(_OBJECTS_SQL + "\0both ways")


@lru_cache(maxsize=1)
def known_objects() -> frozenset[tuple[str, str, str, str]]:
    """Every _OBJECTS_SQL row of a warehouse made by any prefix of irw's migrations, as this DuckDB
    writes them. Making them takes ~0.2 s, so the rows are kept in the user's cache folder under a
    name that holds the DuckDB version and a hash of the migration files (read again ~1 ms)."""
    steps = [(0, "schema/000_schema_version.sql"), *migrations()]
    cache = "known-objects-" + _known_objects_digest() + ".json"
    kept = read_cached(cache, lambda rows: frozenset(tuple(row) for row in rows))
    if kept is not None:
        return kept
    rows: set[tuple[str, str, str, str]] = set()
    # Twice: as irw migrates, and with the statements for PostgreSQL too (their indexes are in
    # warehouses made by running the files whole, as DuckDB accepts them).
    for whole in (False, True):
        con = duckdb.connect()
        try:
            for _, relative_path in steps:
                for query, _names in split_statements(migration_sql(relative_path)):
                    if POSTGRES_ONLY not in query:
                        con.execute(query)
                    elif whole:
                        try:
                            con.execute(query)
                        except duckdb.Error:
                            pass
                rows |= {tuple(row) for row in con.execute(_OBJECTS_SQL).fetchall()}
        finally:
            con.close()
    keep_cached(cache, sorted(rows))
    return frozenset(rows)


def _migrations_digest(salt: str = "") -> str:
    """What names the files kept from this irw's migrations on this DuckDB: a hash of DuckDB's
    version, every migration file and salt."""
    import hashlib

    digest = hashlib.sha256(f"{duckdb.__version__}\0{salt}".encode())
    for _, relative_path in [(0, "schema/000_schema_version.sql"), *migrations()]:
        digest.update(relative_path.encode() + b"\0" + migration_sql(relative_path).encode() + b"\0")
    return digest.hexdigest()[:24]


# -- a new warehouse file ---------------------------------------------------------------------
# A new warehouse file starts as a copy of an empty warehouse that this irw migrated once and keeps
# in the user's cache: applying the migrations took ~70 ms of every new warehouse (DuckDB writes
# some 70 catalog entries one statement at a time); copying its 0.8 MB takes under 1 ms.
# Kept in a folder only the user may write (resources.private_cache_folder), as compiled
# templates are: what a warehouse holds runs in every command that reads it.
class _MigratedHere(Database):
    """A new warehouse file migrated in place: how the kept empty warehouse is made."""

    copies_empty_warehouse = False


def empty_warehouse() -> Path | None:
    """The empty warehouse this irw's migrations make on this DuckDB, kept in the user's cache (made
    now if missing); None where it cannot be kept, and the migrations run in the new file itself."""
    from warehouse.resources import private_cache_folder

    folder = private_cache_folder("warehouses")
    if folder is None:
        return None
    kept = folder / f"empty-{_migrations_digest()}.duckdb"
    try:
        info = kept.lstat()
        if stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid():
            return kept
    except OSError:
        pass
    partial = folder / f".{kept.name}.{os.getpid()}-{os.urandom(4).hex()}"  # a thread's own (irw serve)
    try:
        _MigratedHere(str(partial)).close()
        if Path(f"{partial}.wal").exists():
            return None  # not checkpointed: the file alone is not the warehouse
        os.replace(partial, kept)
        _remove_unused_empty_warehouses(folder, keep=kept)
        return kept
    except (OSError, IrwError, duckdb.Error):
        return None
    finally:
        for leftover in (partial, Path(f"{partial}.wal")):
            try:
                leftover.unlink()
            except OSError:
                pass


# When one is made, the kept empty warehouses of other irw or DuckDB versions are removed once
# unused this long (another install may still use its own), and what a killed process left
# half made once this old.
_UNUSED_EMPTY_WAREHOUSE_SECONDS = 30 * 24 * 3600
_LEFT_HALF_MADE_SECONDS = 3600


def _remove_unused_empty_warehouses(folder: Path, keep: Path) -> None:
    import time

    now = time.time()
    for other in folder.iterdir():
        try:
            info = other.stat()
            if other.name.startswith("empty-") and other != keep:
                unused = now - info.st_atime > _UNUSED_EMPTY_WAREHOUSE_SECONDS
            else:
                unused = other.name.startswith(".empty-") and now - info.st_mtime > _LEFT_HALF_MADE_SECONDS
            if unused:
                other.unlink()
        except OSError:
            pass


def _copy_empty_warehouse(path: str) -> bool:
    """Makes the new warehouse file path a copy of empty_warehouse(): written beside it under a name
    of its own, then linked to path, so no other process sees half of it and one that made path
    meanwhile keeps its file. False when there is no kept empty warehouse or it could not be
    copied (a file system without links): the migrations then run in the new file."""
    kept = empty_warehouse()
    if kept is None:
        return False
    partial = os.path.join(os.path.dirname(os.path.abspath(path)), f".irw-new-{os.getpid()}-{os.urandom(4).hex()}")
    try:
        # the mode DuckDB gives a file it makes (the umask's), not a temporary file's 0o600
        os.close(os.open(partial, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
    except OSError:
        return False
    try:
        shutil.copyfile(kept, partial)
        os.link(partial, path)
        return True
    except OSError:
        return False
    finally:
        try:
            os.unlink(partial)
        except OSError:
            pass


def _applied_versions(db) -> set[int]:
    """Every migration the warehouse has applied."""
    if not db.schema_version():
        return set()
    return {row[0] for row in db.fetchall("select version from irw_schema")}


# -- paths ------------------------------------------------------------------------------------

def _checked_path(path: Any) -> str:
    """The warehouse path as a string, refusing what cannot be one before anything touches disk."""
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, (str, os.PathLike)):
        raise WarehouseOpenError(f"a warehouse is a file path (str or os.PathLike), not {type(path).__name__}")
    text = os.fspath(path)
    if not isinstance(text, str):
        text = os.fsdecode(text)
    if text == MEMORY:
        return text
    match = _URL.match(text)
    if match:  # the rest (user, password, host) is not repeated
        raise WarehouseOpenError(f"cannot open warehouse {match.group(0)}...: irw opens DuckDB files and "
                                 "PostgreSQL servers (postgresql://user:password@host:5432/dbname); pass one")
    if not text or "\x00" in text:
        raise WarehouseOpenError(f"cannot open warehouse {text!r}: not a usable file path")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # bytes that are not UTF-8 reach Python as lone surrogates
        shown = os.fsencode(text).decode("utf-8", "backslashreplace")
        raise WarehouseOpenError(f"cannot open warehouse {shown}: the file name is not UTF-8, and DuckDB "
                                 "takes only UTF-8 names; rename the file or its folder") from None
    return text


def _existing_warehouse_file(path: str) -> bool:
    """Whether path exists; refuses, without opening it, anything DuckDB could not use as a
    warehouse file (a FIFO would block the open forever, a directory or device fails obscurely)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return False
    except NotADirectoryError:
        raise NotAWarehouse(f"cannot open warehouse {path}: a part of its path is a file, not a folder") from None
    except OSError as exc:
        raise WarehouseOpenError(f"cannot open warehouse {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise NotAWarehouse(f"cannot open warehouse {path}: it is a directory; pass a file path, "
                            f"e.g. {os.path.join(path, DEFAULT_PATH)}")
    if not stat.S_ISREG(info.st_mode):
        kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(info.st_mode) else
                "a character device" if stat.S_ISCHR(info.st_mode) else
                "a block device" if stat.S_ISBLK(info.st_mode) else
                "a socket" if stat.S_ISSOCK(info.st_mode) else "not a regular file")
        raise NotAWarehouse(f"cannot open warehouse {path}: it is {kind}, not a regular file; "
                            "a warehouse is a DuckDB database file")
    try:
        head = output.read_head(path, info, output.HEAD_BYTES)  # never closes a descriptor DuckDB holds
    except OSError as exc:
        raise WarehouseOpenError(f"cannot open warehouse {path}: {exc.strerror or exc}") from None
    kind = output.kind_of_head(head)
    if kind != output.DUCKDB_DATABASE:
        what = ("it is empty" if not head else f"it starts like {kind}" if kind else
                "it does not start as DuckDB files do")
        raise NotAWarehouse(f"cannot open warehouse {path}: not a valid DuckDB database file ({what}); "
                            "pass the path of an irw warehouse, or a new file name to create one")
    return True


# -- connections --------------------------------------------------------------------------------

def _memory_backed_folder() -> str | None:
    """/dev/shm when it is a folder this process can write, else the default temporary folder."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def _load_python_scans() -> None:
    """Loads the duckdb package, which sets up how DuckDB scans Python objects (duckdb._sources):
    with only its engine module loaded (see the import above), reading an Arrow table or a polars
    frame fails with "Python Arrow objects cannot be scanned". Only the paths that hand DuckDB
    such objects pay for the package."""
    import duckdb as package  # noqa: F401


# What modules outside the engine modules need of DuckDB's own API, so that only the engine modules
# import duckdb (tests/test_engines_seam.py): the errors its reading of files and SQL raises.
DuckDBError = duckdb.Error
DuckDBInvalidInput = duckdb.InvalidInputException
DuckDBOutOfMemory = duckdb.OutOfMemoryException
DuckDBIOError = duckdb.IOException
DuckDBPermissionError = duckdb.PermissionException
DuckDBConnection = duckdb.DuckDBPyConnection
# irw sql's checks of a statement (warehouse/store/adhoc.py): DuckDB's kinds of statement, and its tokenizer
StatementType = duckdb.StatementType
tokenize = duckdb.tokenize


# Every timestamp irw stores is UTC, whatever the machine's zone: the defaults of ingested_at,
# created_at, computed_at (current_timestamp, cast to a timestamp in the session's zone) beside the
# file dates irw reads in UTC, so that a history merges runs ingested from machines in other zones.
UTC = "set TimeZone = 'UTC'"


def parser_connection() -> duckdb.DuckDBPyConnection:
    """A plain in-memory connection that parses SQL (extract_statements) and holds nothing
    (warehouse/evaluation/user_measures.py checks a measure file's statement with it)."""
    return duckdb.connect()


# How often, and how far apart, an open that read the file as damaged is tried again before it is
# said to be: a walk's second ingest, opening the file just as the first one let go of it, read
# "Could not read enough bytes" and was told to restore a healthy warehouse from a backup (once in
# some fifty tries); a file that is damaged stays so, and is said to be a second later.
SETTLE_TRIES, SETTLE_PAUSE = 5, 0.2


def _read_mid_write(error: BaseException) -> bool:
    """Whether an open's error is what reading a file another process is writing gives: a block
    past its end, or a block whose checksum does not match yet."""
    text = str(error)
    return "Could not read enough bytes" in text or ("checksum" in text and "does not match" in text)


def _connect_settled(target: str, **options: Any) -> duckdb.DuckDBPyConnection:
    """duckdb.connect(target, **options), tried again SETTLE_TRIES times when it read the file as damaged."""
    import time

    for attempt in range(SETTLE_TRIES):
        try:
            return duckdb.connect(target, **options)
        except duckdb.Error as exc:
            if attempt == SETTLE_TRIES - 1 or not _read_mid_write(exc):
                raise
            time.sleep(SETTLE_PAUSE)
    raise AssertionError("unreachable")


# this process's folder in FILE.tmp for the sandbox's spill files, one per warehouse file, with the
# count of sandbox connections using it
_SANDBOX_SPILLS: dict[str, tuple[Path, int]] = {}
_SANDBOX_SPILLS_GUARD = threading.Lock()


def _sandbox_spill_acquire(target: str) -> Path | None:
    """This process's folder in FILE.tmp for the sandbox's spill files (warehouse/leftovers.py:
    removed when its last sandbox connection closes, or after a kill by the next command that opens
    the file, a reading one too), what killed commands left there removed first. One for every
    sandbox of the process on the file while any is open: DuckDB refuses a second connection whose
    configuration differs, and the folder is set as the connection opens (the sandbox may not
    change temp_directory after). None when FILE.tmp cannot be made: DuckDB then spills into
    FILE.tmp itself."""
    parent = Path(target + ".tmp")
    with _SANDBOX_SPILLS_GUARD:
        held = _SANDBOX_SPILLS.get(str(parent))
        if held is not None:
            _SANDBOX_SPILLS[str(parent)] = (held[0], held[1] + 1)
            return held[0]
        try:
            parent.mkdir(exist_ok=True)
            _clean_spills(parent, exclusive=False)
            folder = leftovers.make_held_folder(parent, "irw-")
        except OSError:
            return None
        _SANDBOX_SPILLS[str(parent)] = (folder, 1)
        return folder


def _sandbox_spill_release(folder: Path | None) -> None:
    """One sandbox connection using folder closed: the last one removes it (and FILE.tmp, empty)."""
    if folder is None:
        return
    with _SANDBOX_SPILLS_GUARD:
        key = str(folder.parent)
        held = _SANDBOX_SPILLS.get(key)
        if held is None or held[0] != folder:
            return
        if held[1] > 1:
            _SANDBOX_SPILLS[key] = (folder, held[1] - 1)
            return
        del _SANDBOX_SPILLS[key]
    leftovers.remove_held_folder(folder)
    try:
        folder.parent.rmdir()  # FILE.tmp, unless another process spills there
    except OSError:
        pass


def _connect_sandbox(target: str, spill: Path | None = None) -> duckdb.DuckDBPyConnection:
    """The sandbox's connection to target, spilling into spill (_sandbox_spill_acquire) where given:
    into DuckDB's FILE.tmp, a killed `irw sql` left its spill files for no reading command to
    remove (a walk: 693 MB after a kill -9, through any number of `irw runs`)."""
    config = SANDBOX_CONFIG if spill is None else {**SANDBOX_CONFIG, "temp_directory": str(spill)}
    con = _connect_settled(target, read_only=True, config=config)
    try:
        # A second sandbox on the same file in this process (irw serve's requests) shares the
        # first's database instance, whose configuration that one locked already: DuckDB refuses
        # any SET there, and the lock it would set holds.
        if not con.execute("select current_setting('lock_configuration')").fetchone()[0]:
            con.execute("set enable_progress_bar = false")
            con.execute(UTC)
            # the limits every irw connection keeps (IRW_MEMORY_LIMIT, IRW_TEMP_LIMIT): a query
            # of the user's ran at DuckDB's own default, 80% of the machine's memory
            con.execute(f"set memory_limit = '{memory_limit()}'")
            temp_limit = os.environ.get("IRW_TEMP_LIMIT")
            if temp_limit:
                con.execute(f"set max_temp_directory_size = '{_checked_size(temp_limit, 'IRW_TEMP_LIMIT')}'")
            con.execute("set lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def _refuse_open_transaction(con: duckdb.DuckDBPyConnection) -> None:
    """Switching connections would roll back a transaction the caller opened: refuse instead."""
    try:
        con.execute("begin transaction")
    except duckdb.TransactionException:
        from warehouse.errors import QueryError

        raise QueryError("Warehouse.sql cannot run while a transaction is open on the warehouse "
                         "(its connection is reopened read-only for the query): commit or roll back first") from None
    con.execute("rollback")


# -- what DuckDB's errors mean ----------------------------------------------------------------

def _first_line(error: BaseException) -> str:
    """DuckDB's message, its first line, as a clause of ours ("...: {it}; nothing was stored"):
    without the full stop some of its messages end in."""
    text = str(error).strip()
    return text.splitlines()[0].rstrip(".") if text else type(error).__name__


def _open_failure(path: str, error: BaseException, *, read_only: bool) -> IrwError:
    """Why DuckDB could not open a warehouse file, said so a person knows what to do."""
    message = _first_line(error)
    if "Could not set lock" in message:
        holder = re.search(r"held in (.+?) \(PID (\d+)\)", message)
        pid = int(holder.group(2)) if holder else None
        command = irw_command(pid)
        who = (f"another process ({command or os.path.basename(holder.group(1))}, PID {pid})" if holder
               else "another process")
        serving = (command or "").startswith("irw serve")
        if "open this database in read-only mode" in message:
            # DuckDB says so when the process in the way only reads the file.
            locked = WarehouseLocked(
                f"cannot open warehouse {path}: {who} has it open for reading, and DuckDB lets no process "
                "write a file others have open: wait until it closes it (commands that only read, such as "
                "`irw runs`, work alongside it)")
        else:
            locked = WarehouseLocked(
                f"cannot open warehouse {path}: {who} has it open for writing; DuckDB lets one process write "
                "a file and no other open it meanwhile: wait until it finishes"
                + (" (`irw serve` holds it only while it builds a page)" if serving else
                   " (a notebook or other Python process holding it open: call its warehouse's close(), or leave "
                   "its `with` block)"))
        locked.holder_pid, locked.holder = pid, who
        return locked
    if "different configuration than existing connections" in message:
        # this process holds the file already (a notebook's earlier warehouse.open), opened otherwise
        return WarehouseLocked(
            f"cannot open warehouse {path}{' read-only' if read_only else ''}: this process has it open already "
            f"{'to write it' if read_only else 'read-only'}, and DuckDB opens a file one way at a time in a "
            "process: use that warehouse, or close it first (its close(), or leave its `with` block)")
    if "Permission denied" in message or "Read-only file system" in message:
        verb = "open" if read_only or Path(path).exists() else "create"
        return WarehouseOpenError(
            f"cannot {verb} warehouse {path}: permission denied ({message}); "
            + ("check the file's permissions" if read_only else
               "irw writes the file and a .wal file beside it, so both it and its folder must be writable"))
    damage = failure(path, error)
    if isinstance(damage, WarehouseDamaged):
        return damage
    return WarehouseOpenError(f"cannot open warehouse {path}: {message}")


def irw_command(pid: int | None) -> str | None:
    """The irw command a process runs ("irw serve --port 8000"), read from /proc where there is one;
    None for any other process, or where the system does not say."""
    if pid is None:
        return None
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace").split("\0")
    except OSError:
        return None
    argv = [arg for arg in argv if arg]
    for i, arg in enumerate(argv):
        if os.path.basename(arg) == "irw":
            return " ".join(["irw", *argv[i + 1:]])
        if arg == "-m" and argv[i + 1:i + 2] == ["warehouse"]:
            return " ".join(["irw", *argv[i + 2:]])
    return None


def about_the_file(error: BaseException) -> bool:
    """Whether a DuckDB error is about the warehouse file or its disk (damage, no space, no
    permission) rather than about the statement that met it."""
    text = str(error)
    return (isinstance(error, (duckdb.IOException, duckdb.FatalException)) or "Corrupt database file" in text
            or "database has been invalidated" in text or "No space left on device" in text
            or "Permission denied" in text or "Read-only file system" in text)


def spill_limit_met(error: BaseException) -> bool:
    """Whether DuckDB's out-of-memory error is IRW_TEMP_LIMIT's (max_temp_directory_size: the disk
    it may spill to was full), not memory_limit's: a larger IRW_MEMORY_LIMIT would not help."""
    return "max_temp_directory_size" in str(error) and bool(os.environ.get("IRW_TEMP_LIMIT"))


def spill_limit_said() -> str:
    """What IRW_TEMP_LIMIT's refusal says the command needed (the warehouse's and a file's read)."""
    return f"more disk to spill to than IRW_TEMP_LIMIT lets DuckDB use ({os.environ.get('IRW_TEMP_LIMIT')})"


SPILL_LIMIT_ADVICE = "run it again with a larger IRW_TEMP_LIMIT, or without it"


def _stored_meanwhile(error: BaseException) -> str | None:
    """What a DuckDB error says another writer stored first: `'dl19'` from a duplicate name
    (`Duplicate key "name: dl19" violates ...`, or one met at commit), `the same rows` from another
    duplicate key or a write-write conflict of two transactions; None for any other error."""
    from warehouse.formats.escaping import shown

    text = str(error)
    if isinstance(error, duckdb.ConstraintException):
        key = re.search(r'Duplicate key "(\w+): (.*)" violates', text, re.S)
        if key is None:
            return None
        return f"'{shown(key.group(2))}'" if key.group(1) == "name" else "the same rows"
    if isinstance(error, duckdb.TransactionException):
        # at commit: `Failed to commit: PRIMARY KEY or UNIQUE constraint violation: duplicate key
        # "dl19"`, or `Catalog write-write conflict on create with ...`
        key = re.search(r'duplicate key "(.*)"', text, re.S)
        if key:
            return f"'{shown(key.group(1))}'"
        return "the same rows" if "conflict" in text.lower() else None
    return None


def failure(path: str, error: BaseException) -> IrwError:
    """A DuckDB error met while working on the warehouse, as an IrwError that says what happened
    and what to do: a damaged file, a full disk, a folder DuckDB cannot write, or (otherwise)
    DuckDB's own message."""
    message = _first_line(error)
    text = str(error)
    if ("Corrupt database file" in text or ("checksum" in text and "does not match" in text)
            or "Could not read enough bytes" in text  # a truncated file
            or "database has been invalidated" in text or isinstance(error, duckdb.FatalException)):
        return WarehouseDamaged(
            f"the warehouse {path} is damaged: {message}; nothing more was changed. Restore it from a backup "
            "(or rebuild it with `irw ingest`); `irw sql` may still read the parts that are intact")
    if "No space left on device" in text or "Disk full" in text or "disk is full" in text.lower():
        return DatabaseError(
            f"the disk holding the warehouse {path} is full: {message}; the transaction was rolled back, "
            "so nothing was stored: free some space and run the command again")
    if "Permission denied" in text or "Read-only file system" in text:
        return DatabaseError(
            f"cannot write the warehouse {path}: {message}; DuckDB writes the file and a .wal file beside "
            "it, so both it and its folder must be writable (nothing was stored)")
    if isinstance(error, duckdb.IOException):
        return DatabaseError(f"DuckDB could not read or write the warehouse {path}: {message}")
    meanwhile = _stored_meanwhile(error)
    if meanwhile:
        # Another thread of this process wrote the warehouse between this command's look at it
        # and its transaction (_writer_lock serialises the transactions, not the looks before
        # them): as a server warehouse says of another client (PostgresDatabase.failure)
        return ConflictError(f"another writer in this process stored {meanwhile} meanwhile in {path}; "
                             "try again (it then finds what the other writer stored)")
    if (isinstance(error, duckdb.OutOfMemoryException) or "Out of Memory Error" in text) and spill_limit_met(error):
        return DatabaseError(f"the command needed {spill_limit_said()}: {message}; nothing was stored: "
                             f"{SPILL_LIMIT_ADVICE}")
    if isinstance(error, duckdb.OutOfMemoryException) or "Out of Memory Error" in text:
        return DatabaseError(
            f"the command needed more memory than irw lets DuckDB use ({memory_limit()}: IRW_MEMORY_LIMIT, default "
            f"{DEFAULT_MEMORY_LIMIT}) or more disk to spill to: {message}; nothing was stored. Run it again with a "
            "larger IRW_MEMORY_LIMIT")
    return DatabaseError(f"DuckDB failed on the warehouse {path}: {message}")


# One writer lock per warehouse file in this process. DuckDB lets one process open a file any
# number of times (warehouse.open in each of several threads) and runs their transactions side
# by side, optimistically: two that write the same rows (the measures an evaluation registers, a
# new file's schema) conflict at commit and one fails. irw's write transactions on a file take its
# lock before they begin, so each begins after the other's commit, sees what it stored and stores
# only the rest, as a second process does after the first lets go of the file.
_WRITER_LOCKS: dict[str, threading.RLock] = {}
_WRITER_LOCKS_GUARD = threading.Lock()


def _writer_lock(path: str) -> threading.RLock:
    key = os.path.realpath(path)
    with _WRITER_LOCKS_GUARD:
        return _WRITER_LOCKS.setdefault(key, threading.RLock())


class _Transaction:
    """One transaction of irw's own writes. A commit DuckDB cannot write (a folder it cannot
    write the .wal in, a full disk) and a statement that met a damaged file or a full disk raise
    the IrwError that says so (failure()); nothing of the transaction is stored. With a lock
    (the file's writer lock), the transaction begins once it holds it and lets go when it ends."""

    def __init__(self, con, path: str = "", lock: threading.RLock | None = None):
        self.con = con
        self.path = path
        self.lock = lock

    def __enter__(self):
        if self.lock is not None:
            self.lock.acquire()
        try:
            self.con.execute("begin transaction")
        except BaseException:
            self._release()
            raise
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                try:
                    self.con.execute("commit")
                except duckdb.Error as error:
                    _roll_back(self.con)
                    raise failure(self.path, error) from error
                return False
            _roll_back(self.con)
            if isinstance(exc, duckdb.Error) and _damage_or_full_disk(exc):
                raise failure(self.path, exc) from exc
            return False
        finally:
            self._release()

    def _release(self) -> None:
        if self.lock is not None:
            self.lock.release()


def _roll_back(con) -> None:
    try:
        con.execute("rollback")
    except duckdb.Error:
        pass  # a failed commit or a fatal error leaves no transaction to roll back


def _damage_or_full_disk(error: BaseException) -> bool:
    """Narrower than about_the_file: an unreadable input file is the caller's to report."""
    text = str(error)
    return ("Corrupt database file" in text or "database has been invalidated" in text
            or "Could not read enough bytes" in text
            or "No space left on device" in text or isinstance(error, duckdb.FatalException))
