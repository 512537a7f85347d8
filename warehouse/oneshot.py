"""Files to numbers in one call, without a warehouse's bookkeeping: `irw trec-eval` and
warehouse.evaluate_files.

A one-shot database is an in-memory DuckDB database with the tables ingest and evaluation write
and read (sql/oneshot/schema.sql: a migrated warehouse's columns, none of its history, views or
unneeded keys). The files go in through warehouse/ingest.py and are evaluated by
warehouse/evaluate.py's Evaluator, exactly as in a stored warehouse: the same validation, the
same FILE:LINE errors, the same measure SQL. Nothing outlives the call.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

import duckdb

from .db import MEMORY, Database, failure
from .ingest import COMPRESSED_SUFFIXES


# Plain input files smaller than this in all (DL19's qrels and 43,000-line run are 1.6 MB, the
# benchmark's 250k-line TREC-like run and its qrels 13 MB) are evaluated on one DuckDB thread:
# every statement there takes a few milliseconds, which a second thread mostly spends waking up
# and handing over (DL19, five measures: ~10% less CPU and 9 MB less memory, and no slower).
SINGLE_THREAD_BELOW = 16 << 20


def input_size(paths: "Iterable[object]") -> int | None:
    """The bytes of these input files when every one is a plain file (a path whose name has no
    compression suffix), else None: a compressed file's size says little of its lines."""
    total = 0
    for path in paths:
        if not isinstance(path, (str, os.PathLike)) or Path(path).suffix.lower() in COMPRESSED_SUFFIXES:
            return None
        try:
            total += os.stat(path).st_size
        except OSError:
            return None  # ingest says what is wrong with it
    return total


class OneShotDatabase(Database):
    """An in-memory database made to evaluate files once (see the module docstring)."""

    # nothing to look up before computing and nothing to record after (~5 ms and seven statements
    # of a DL19 evaluation): warehouse/evaluate.py computes and reads, as for a new warehouse
    keeps_scores = False

    def __init__(self, input_bytes: int | None = None) -> None:
        super().__init__(MEMORY)
        if input_bytes is not None and input_bytes < SINGLE_THREAD_BELOW:
            self.execute("set threads = 1")

    def _migrate(self) -> None:
        """The one-shot schema instead of the warehouse's migrations."""
        self.run_file("oneshot/schema.sql")


@contextmanager
def database(*, close: bool = True, input_bytes: int | None = None) -> Iterator[OneShotDatabase]:
    """A one-shot database, closed on the way out unless close=False (a process that exits right
    after, with os._exit: `irw trec-eval`); a DuckDB error inside is raised as the IrwError that
    says what happened (as a Warehouse does). input_bytes: the size of the files it will read
    (input_size), which sets how many threads DuckDB uses."""
    db = OneShotDatabase(input_bytes)
    try:
        yield db
    except duckdb.Error as exc:
        raise failure(db.path, exc) from exc
    finally:
        if close:
            db.close()
