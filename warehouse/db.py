"""Opens a warehouse file through SQLAlchemy (duckdb-engine) and keeps its schema current.

SQLAlchemy is the connection layer users can reach (`Warehouse.engine`); bulk paths run on the
raw DuckDB connection of the same engine, because a second duckdb.connect on the same file in one
process fails.
"""
from __future__ import annotations

import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

import sqlalchemy as sa

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
    """One open warehouse file: a SQLAlchemy engine and connection, and its DuckDB connection."""

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
        url = "duckdb:///:memory:" if self.path == MEMORY else f"duckdb:///{Path(self.path).resolve()}"
        connect_args = {"read_only": True} if read_only else {}
        self.engine = sa.create_engine(url, connect_args=connect_args, poolclass=sa.pool.StaticPool)
        try:
            self._sa_connection = self.engine.connect()
        except sa.exc.DBAPIError as exc:
            self.engine.dispose()
            raise WarehouseOpenError(_open_failure(self.path, exc.orig)) from None
        # duckdb-engine's ConnectionWrapper forwards every attribute to the DuckDBPyConnection.
        self.con = self._sa_connection.connection.driver_connection
        # DuckDB draws its own progress bar on stdout, which carries data here; irw shows progress on stderr.
        self.con.execute("set enable_progress_bar = false")
        try:
            self._migrate()
        except BaseException:
            # Left open, the file stays attached in this process and every later open of it with
            # other options (read_only) fails with DuckDB's "different configuration" error.
            self.close()
            raise

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
            self._sa_connection.close()
        finally:
            self.engine.dispose()

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

