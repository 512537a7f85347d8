"""The engines irw runs on, and the one place an engine is chosen.

Three engines run the same SQL files under sql/ (derived per engine by warehouse/engines/dialect.py):

- duckdb: a warehouse in a DuckDB file (warehouse/engines/duckdb.py, Database), the default;
- postgres: a warehouse on a PostgreSQL server, opened by its URL (warehouse/engines/postgres.py,
  PostgresDatabase);
- spark: files evaluated on a Spark cluster, nothing kept (warehouse/engines/spark.py, SparkDatabase;
  warehouse/engines/spark_store.py stores what it computed in a warehouse).

`Engine` is what all three implement: what the Evaluator (warehouse/evaluation/evaluator.py) and ingest need.
`WarehouseEngine` adds what a warehouse that keeps its tables has (DuckDB and PostgreSQL). What
differs between them is a method (copy_in, snapshot, statements ...) or a capability stated as a
class attribute (batches_runs, writes_parquet ...), never a test of the engine's name outside the
engine modules (tests/test_engines_seam.py holds both).

The engine of a warehouse follows its location (`engine_of`: a PostgreSQL URL is postgres, anything
else a DuckDB file, but what was plainly meant as a server and is no URL irw can use, which is
refused before anything is created: postgres.location_problem); `chosen` checks an engine named
outright (`--engine`) against it.
"""
from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, ClassVar, Mapping, Protocol, Sequence, runtime_checkable

from warehouse.engines.duckdb import Database
from warehouse.errors import UsageError
from warehouse.engines.postgres import PostgresDatabase, check_location, is_url, masked, shown_url

Params = Sequence[Any] | Mapping[str, Any] | None

# The engines by the name --engine takes: those that hold a warehouse (its location is --db),
# and those that evaluate the files they are given and keep nothing.
WAREHOUSE_ENGINES = ("duckdb", "postgres")
FILE_ENGINES = ("spark",)
ENGINES = (*WAREHOUSE_ENGINES, *FILE_ENGINES)


@runtime_checkable
class Engine(Protocol):
    """What every engine implements: Database (DuckDB), PostgresDatabase and SparkDatabase."""

    dialect: ClassVar[str]  # the engine's name: "duckdb", "postgres" or "spark"
    # a warehouse keeps what it computes: an evaluation computes only what is not stored yet
    keeps_scores: ClassVar[bool]
    # an evaluation of many runs is computed in batches of about evaluate.ROWS_PER_BATCH rows (False:
    # the engine plans the whole evaluation at once, as Spark does)
    batches_runs: ClassVar[bool]
    path: str  # what messages show: a file, a URL with its password masked, spark:MASTER
    read_only: bool
    sandboxed: bool
    created: bool

    def execute(self, sql: str, params: Params = None) -> Any: ...
    def fetchall(self, sql: str, params: Params = None) -> list[tuple]: ...
    def fetchone(self, sql: str, params: Params = None) -> Any: ...
    def run_file(self, relative_path: str, params: dict[str, Any] | None = None) -> Any: ...
    def run_sql(self, sql: str, params: dict[str, Any] | None = None) -> Any: ...
    def load_rows(self, table: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[Any]]) -> None: ...
    def has_table(self, name: str) -> bool: ...
    def transaction(self) -> AbstractContextManager: ...
    @property
    def staging(self) -> Database: ...
    def lock_scores(self, qrels_set_id: int) -> None: ...
    def close(self) -> None: ...


@runtime_checkable
class WarehouseEngine(Engine, Protocol):
    """What an engine holding a warehouse adds: DuckDB's Database and PostgresDatabase."""

    # `irw sql` runs in a sandbox connection of this process (DuckDB's), not in a read-only session
    # of a server whose role privileges enforce it (PostgreSQL's): warehouse/store/adhoc.py
    sandbox_in_process: ClassVar[bool]
    # text may hold NUL (DuckDB's may, from before ingest refused it; PostgreSQL's cannot)
    text_holds_nul: ClassVar[bool]
    # COPY (query) TO 'file' (format parquet) runs on the warehouse itself (DuckDB), else the rows go
    # through a CSV file and the staging database (warehouse/store/export.py)
    writes_parquet: ClassVar[bool]
    # the statements `irw sql` runs there, as a page says them (PIVOT is DuckDB's own)
    read_statements: ClassVar[str]
    # why the warehouse is read-only though it was not opened so (a PostgreSQL role that may only read)
    read_only_reason: str | None
    # (from, to): the schema versions of an existing warehouse this open migrated (apply_migrations),
    # else None; the CLI says so, as an older irw can no longer open it
    upgraded: tuple[int, int] | None

    def release_memory(self) -> None: ...  # drops the table blocks cached by earlier statements

    @property
    def engine(self) -> Any: ...  # a SQLAlchemy engine
    @property
    def identity(self) -> tuple[str, str]: ...  # two opens of one warehouse have the same
    @property
    def files(self) -> list[str]: ...  # the local files the warehouse lives in (none on a server)
    def statements(self, sql: str) -> tuple[tuple[str, frozenset[str]], ...]: ...
    def copy_in(self, table: str, columns: Sequence[str], csv_path: str) -> None: ...
    def copy_out(self, sql: str, params: Any, csv_path: str) -> None: ...
    def snapshot(self) -> AbstractContextManager: ...
    # after an ingest of qrels or runs: the planner's statistics of the tables it wrote, where the
    # engine plans from statistics it does not keep as it writes (PostgreSQL)
    def refresh_statistics(self, kind: str) -> None: ...
    def schema_version(self) -> int: ...
    def outdated(self, current: int, latest: int, missing: list[int]) -> str: ...
    def lock_migrations(self) -> None: ...
    def discard(self) -> None: ...
    def error_of(self, error: BaseException) -> Exception | None: ...  # what an error in a block means


def engine_of(location: Any) -> str:
    """The engine of the warehouse at location: postgres for a PostgreSQL URL, else duckdb. A location
    meant as a server that is no usable URL (a one-slash postgresql:/..., a libpq key=value string,
    a password holding an unencoded @) is refused here, its password masked: as a DuckDB file path
    it would create a file named by the password."""
    check_location(location)
    return "postgres" if is_url(location) else "duckdb"


def one_file(source: Any, target: Any) -> bool:
    """Whether two locations are one warehouse file, known before either is opened (a DuckDB file
    cannot be opened twice in one process, read-only and not); URLs are compared once open."""
    return engine_of(source) == engine_of(target) == "duckdb" and Path(source).resolve() == Path(target).resolve()


def evaluates_files(engine: str) -> bool:
    """The engine evaluates files it is given (Spark), not the runs a warehouse stores."""
    return engine in FILE_ENGINES


def chosen(engine: str | None, location: Any) -> str:
    """The engine an evaluation runs on: `engine` when named (--engine), else the warehouse's at
    location (--db). A warehouse engine that location contradicts is refused, saying what to do."""
    if engine is None or evaluates_files(engine):
        return engine or engine_of(location)
    if engine not in WAREHOUSE_ENGINES:
        raise UsageError(f"--engine {engine}: irw runs on {', '.join(ENGINES)}")
    found = engine_of(location)
    if engine != found:
        where = "a PostgreSQL URL" if found == "postgres" else "a DuckDB file"
        raise UsageError(f"--engine {engine} but --db (or IRW_DB) is {where}, a {found} warehouse: leave out "
                         f"--engine (the warehouse's engine is used) or pass --db "
                         f"{'a DuckDB file' if engine == 'duckdb' else 'a postgresql:// URL'}")
    return engine


def engine_class(location: Any) -> type[WarehouseEngine]:
    """The class of the warehouse at location (engine_of): PostgresDatabase for a PostgreSQL URL
    (postgresql://user:password@host:5432/dbname), else Database (a DuckDB file)."""
    return PostgresDatabase if engine_of(location) == "postgres" else Database


def on_server(location: Any) -> bool:
    """The warehouse at location is on a server (PostgreSQL): opening it may create the schema in an
    empty database, and its SQL is checked there, not in a sandbox of this process."""
    return not engine_class(location).sandbox_in_process


def shown(location: Any) -> str:
    """The warehouse's location as irw prints it: a URL with its password masked (shown_url), as is
    the password of a location meant as a server that is none (said, never refused, here)."""
    if is_url(location):
        return shown_url(location)
    return masked(location) if isinstance(location, str) else location


def db_option(db: Any) -> str:
    """`--db WAREHOUSE` for a command a message offers to run on the warehouse db (an engine): its
    file's path, or its server's URL as irw shows it (password masked: whoever runs it types the
    password again, rather than a command without --db writing the warehouse of the current folder
    or of IRW_DB)."""
    from warehouse.formats.escaping import shell_word

    return "--db " + shell_word(db.path if db.sandbox_in_process else shown(db.path))


def upgrade_said(db: WarehouseEngine) -> str | None:
    """The line a command says when opening db migrated an existing warehouse (its upgraded): whoever
    shares it on an older irw can no longer open it. None when nothing was migrated."""
    if not db.upgraded:
        return None
    old, new = db.upgraded
    return f"upgraded warehouse {db.path} from schema {old} to {new}: an irw older than this one can no longer open it"


def open_database(path: Any, *, read_only: bool = False, create: bool = True,
                  sandboxed: bool = False) -> WarehouseEngine:
    """The warehouse at path, on its engine (engine_class)."""
    return engine_class(path)(path, read_only=read_only, create=create, sandboxed=sandboxed)


def same_warehouse(a: WarehouseEngine, b: WarehouseEngine) -> bool:
    return a.identity == b.identity


__all__ = ["ENGINES", "Engine", "FILE_ENGINES", "WAREHOUSE_ENGINES", "WarehouseEngine", "chosen", "engine_class",
           "engine_of", "evaluates_files", "on_server", "open_database", "same_warehouse", "shown",
           "upgrade_said"]
