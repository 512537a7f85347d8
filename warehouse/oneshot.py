"""Files to numbers in one call, without a warehouse's bookkeeping: `irw trec-eval` and
warehouse.evaluate_files.

A one-shot database is an in-memory DuckDB database with the tables ingest and evaluation write
and read (sql/oneshot/schema.sql: a migrated warehouse's columns, none of its history, views or
unneeded keys). The files go in through warehouse/ingest.py and are evaluated by
warehouse/evaluate.py's Evaluator, exactly as in a stored warehouse: the same validation, the
same FILE:LINE errors, the same measure SQL. Nothing outlives the call.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import duckdb

from .db import MEMORY, Database, failure


class OneShotDatabase(Database):
    """An in-memory database made to evaluate files once (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__(MEMORY)

    def _migrate(self) -> None:
        """The one-shot schema instead of the warehouse's migrations."""
        self.run_file("oneshot/schema.sql")


@contextmanager
def database() -> Iterator[OneShotDatabase]:
    """A one-shot database, closed on the way out; a DuckDB error inside is raised as the IrwError
    that says what happened (as a Warehouse does)."""
    db = OneShotDatabase()
    try:
        yield db
    except duckdb.Error as exc:
        raise failure(db.path, exc) from exc
    finally:
        db.close()
