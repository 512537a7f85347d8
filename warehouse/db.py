"""Opens a warehouse file with DuckDB and keeps its schema current; SQLAlchemy on request.

SQLAlchemy is the connection layer users can reach (`Warehouse.engine`): an engine whose one
pooled connection is this DuckDB connection (a second duckdb.connect on the same file in one
process fails). It is built on first use: importing SQLAlchemy and building the engine cost
~0.2 s, which every irw command that never asks for it would otherwise pay at start-up.
"""
from __future__ import annotations

import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

import duckdb

from .errors import SchemaVersionError, WarehouseNotFound, WarehouseOpenError
from .resources import read_sql, sql_dir

DEFAULT_PATH = "irw.duckdb"
MEMORY = ":memory:"
_MIGRATION_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


def default_path() -> str:
    return os.environ.get("IRW_DB") or DEFAULT_PATH


def migrations() -> list[tuple[int, str]]:
    """(version, file under sql/) for every schema migration, in order."""
    found = []
    for path in sorted((sql_dir() / "schema").iterdir()):
        match = _MIGRATION_NAME.match(path.name)
        if match and int(match.group(1)) > 0:
            found.append((int(match.group(1)), f"schema/{path.name}"))
    return found


class Database:
    """One open warehouse file: its DuckDB connection, and a SQLAlchemy engine over it on request."""

    def __init__(self, path: str | os.PathLike[str] = DEFAULT_PATH, *, read_only: bool = False,
                 create: bool = True):
        """create=False (and read_only) refuse a missing file instead of creating an empty warehouse."""
        self.path = str(path)
        self.read_only = read_only
        if self.path != MEMORY and (read_only or not create) and not Path(self.path).exists():
            raise WarehouseNotFound(
                f"no warehouse at {self.path}; create one with `irw ingest` or pass --db / IRW_DB"
            )
        if self.path != MEMORY:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.con = duckdb.connect(self.path if self.path == MEMORY else str(Path(self.path).resolve()),
                                      read_only=read_only)
        except duckdb.Error as exc:
            raise WarehouseOpenError(_open_failure(self.path, exc)) from None
        self._engine = None
        # DuckDB draws its own progress bar on stdout, which carries data here; irw shows progress on stderr.
        self.con.execute("set enable_progress_bar = false")
        try:
            self._migrate()
        except BaseException:
            # Left open, the file stays attached in this process and every later open of it with
            # other options (read_only) fails with DuckDB's "different configuration" error.
            self.close()
            raise

    @property
    def engine(self):
        """A SQLAlchemy engine (duckdb-engine dialect) whose one connection is self.con."""
        if self._engine is None:
            import sqlalchemy as sa
            from duckdb_engine import ConnectionWrapper

            self._engine = sa.create_engine("duckdb://", creator=lambda: ConnectionWrapper(self.con),
                                            poolclass=sa.pool.StaticPool)
        return self._engine

    # -- statements --------------------------------------------------------------------------
    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] | None = None):
        return self.con.execute(sql, params) if params is not None else self.con.execute(sql)

    def fetchall(self, sql: str, params: Sequence[Any] | dict[str, Any] | None = None) -> list[tuple]:
        return self.execute(sql, params).fetchall()

    def fetchone(self, sql: str, params: Sequence[Any] | dict[str, Any] | None = None):
        return self.execute(sql, params).fetchone()

    def run_file(self, relative_path: str, params: dict[str, Any] | None = None):
        """Runs the statements of one file under sql/, each bound to the $names it uses."""
        return self.run_sql(read_sql(relative_path), params)

    def run_sql(self, sql: str, params: dict[str, Any] | None = None):
        """Runs SQL text of our own (never user input), each statement bound to the $names it uses."""
        result = None
        for statement in self.con.extract_statements(sql):
            names = statement.named_parameters
            if names:
                result = self.con.execute(statement.query, {name: (params or {})[name] for name in names})
            else:
                result = self.con.execute(statement.query)
        return result

    def transaction(self) -> "_Transaction":
        return _Transaction(self.con)

    @contextmanager
    def rolled_back(self) -> Iterator[None]:
        """Runs the block in a transaction that is always rolled back (read-only SQL)."""
        self.con.execute("begin transaction")
        try:
            yield
        finally:
            self.con.execute("rollback")

    def close(self) -> None:
        try:
            if self._engine is not None:
                self._engine.dispose()
        finally:
            self.con.close()

    # -- schema ------------------------------------------------------------------------------
    def schema_version(self) -> int:
        row = self.fetchone(
            "select count(*) from information_schema.tables "
            "where table_name = 'irw_schema' and table_schema = 'main'"
        )
        if not row[0]:
            return 0
        return self.fetchone("select coalesce(max(version), 0) from irw_schema")[0]

    def _migrate(self) -> None:
        known = migrations()
        latest = known[-1][0] if known else 0
        current = self.schema_version()
        if current > latest:
            raise SchemaVersionError(
                f"{self.path} has schema version {current}, newer than this irw understands "
                f"({latest}); upgrade irw to open it"
            )
        pending = [(v, f) for v, f in known if v > current]
        if not pending:
            return
        if self.read_only:
            raise SchemaVersionError(
                f"{self.path} has schema version {current} and needs migrating to {latest}; "
                "open it once without read-only (e.g. `irw runs`) to upgrade it"
            )
        with self.transaction():
            self.run_file("schema/000_schema_version.sql")
            for version, relative_path in pending:
                self.con.execute(read_sql(relative_path))
                self.con.execute("insert into irw_schema (version, name) values (?, ?)",
                                 [version, relative_path])


def _open_failure(path: str, error: BaseException) -> str:
    """Why DuckDB could not open a warehouse file, said so a person knows what to do."""
    message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if "Could not set lock" in message:
        holder = re.search(r"\(PID (\d+)\)", message)
        who = f"another process (PID {holder.group(1)})" if holder else "another process"
        return (f"cannot open warehouse {path}: {who} has it open for writing; DuckDB allows one writing "
                "process per file, so wait for it to finish")
    return f"cannot open warehouse {path}: {message}"


class _Transaction:
    def __init__(self, con):
        self.con = con

    def __enter__(self):
        self.con.execute("begin transaction")
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.con.execute("commit")
        else:
            self.con.execute("rollback")
        return False

