"""The statement calls every engine derives the same way from its own `execute` and `run_sql`.

DuckDB's Database, PostgresDatabase and SparkDatabase differ in how one statement runs (a DuckDB
connection, a psycopg cursor over the statement derived for PostgreSQL, a Spark plan); fetching its
rows and running a file under sql/ are the same on all three, so they are written once here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence

from warehouse.formats.table import Table
from warehouse.resources import read_sql


class Statements:
    """fetchall, fetchone and run_file over the engine's execute and run_sql."""

    def execute(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> Any:
        raise NotImplementedError

    def run_sql(self, sql: str, params: dict[str, Any] | None = None) -> Any:
        raise NotImplementedError

    def fetchall(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> list[tuple]:
        return self.execute(sql, params).fetchall()

    def fetchone(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> Any:
        return self.execute(sql, params).fetchone()

    def run_file(self, relative_path: str, params: dict[str, Any] | None = None) -> Any:
        """Runs the statements of one file under sql/, each bound to the $names it uses."""
        return self.run_sql(read_sql(relative_path), params)


def chunks_of(fetch: Callable[[int | None], list[tuple]], chunk_rows: int | None) -> Iterator[list[tuple]]:
    """A result's rows, chunk_rows at a time (None: all at once), none empty: fetch(n) is the
    result's fetchmany(n), or its fetchall() for None, with the engine's own error handling. A
    chunk shorter than chunk_rows is the last: no further fetch is made."""
    while True:
        rows = fetch(chunk_rows)
        if rows:
            yield rows
        if not rows or chunk_rows is None or len(rows) < chunk_rows:
            return


@dataclass
class RowStream:
    """A statement's result, read a chunk of rows at a time while its transaction is open
    (warehouse/store/adhoc.py's stream(), on either engine): its columns, DuckDB's type of each
    (None on PostgreSQL), the chunks (lists of row tuples, none empty) and, for parquet and arrow,
    each column's Arrow type (Table.arrow_types)."""

    columns: list[str]
    types: list[str] | None
    chunks: Iterator[list[tuple]]
    arrow_types: Callable[[], Any] | None = None

    def table(self, max_rows: int | None = None) -> Table:
        """Every row (or the first max_rows) as one Table: what Warehouse.sql returns."""
        rows: list[tuple] = []
        for chunk in self.chunks:
            rows.extend(chunk)
            if max_rows is not None and len(rows) >= max_rows:
                del rows[max_rows:]
                break
        table = Table(self.columns, rows, self.types)
        table.arrow_types = self.arrow_types
        return table
