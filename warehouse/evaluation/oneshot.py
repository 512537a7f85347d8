"""Files to numbers in one call, without a warehouse's bookkeeping: `irw trec-eval` and
warehouse.evaluate_files.

A one-shot database is an in-memory DuckDB database with the tables ingest and evaluation write
and read (sql/oneshot/schema.sql, generated from the migrations by scripts/oneshot_schema.py: a
migrated warehouse's columns, none of its history, views or unneeded keys). The files go in through warehouse/ingestion/files.py and are evaluated by
warehouse/evaluation/evaluator.py's Evaluator, exactly as in a stored warehouse: the same validation, the
same FILE:LINE errors, the same measure SQL. Nothing outlives the call.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator


from warehouse.engines.duckdb import MEMORY, Database, DuckDBError, failure
from warehouse.errors import IrwError
from warehouse.ingestion import files as ingest
from warehouse.ingestion.files import is_compressed


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
        if not isinstance(path, (str, os.PathLike)) or is_compressed(path):
            return None
        try:
            total += os.stat(path).st_size
        except OSError:
            return None  # ingest says what is wrong with it
    return total


class OneShotDatabase(Database):
    """An in-memory database made to evaluate files once (see the module docstring)."""

    # nothing to look up before computing and nothing to record after (~5 ms and seven statements
    # of a DL19 evaluation): warehouse/evaluation/evaluator.py computes and reads, as for a new warehouse
    keeps_scores = False

    def __init__(self, input_bytes: int | None = None) -> None:
        super().__init__(MEMORY)
        self.run_file("oneshot/no_join_filters.sql")
        if input_bytes is not None and input_bytes < SINGLE_THREAD_BELOW:
            self.run_file("oneshot/single_thread.sql")

    def _migrate(self) -> None:
        """The one-shot schema (made from the migrations when irw is written, not here) instead of
        the warehouse's migrations."""
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
    except DuckDBError as exc:
        raise failure(db.path, exc) from exc
    finally:
        if close:
            db.close()


# Run files are staged together in chunks of about this many bytes (a larger file alone): the
# staged lines take about three times their bytes until they are stored.
STAGE_TOGETHER_BYTES = 64 << 20
ONESHOT_RUN_FILE_COLUMNS = [("file_id", "integer"), ("path", "varchar"), ("first_tag", "varchar")]
ONESHOT_RUN_COLUMNS = [("position", "integer"), ("name", "varchar"), ("file_id", "integer"), ("tag", "varchar"),
                       ("source_path", "varchar"), ("run_date", "timestamp"), ("date_source", "varchar")]


def ingest_runs(db: OneShotDatabase, paths: "list[Path]", names: list[str], *, judged_rows_only: bool) -> None:
    """Stores the run files `paths` as the runs `names` (one each, in order; a file given twice is
    two runs), as ingest.ingest_run(strict=False, digest=False, read_ir_metadata=False) stores each.

    Plain files that each begin with a run line are staged by one read of a chunk of them
    (sql/oneshot/stage_runs.sql, _chunks) and stored by one statement per table; when any file of
    a chunk is not taken cleanly that way (a header, a bad line, a second tag, a repeated pair), or
    one is compressed, every file of the chunk is ingested alone instead, which says what is wrong,
    naming file:line."""
    for chunk in _chunks(paths, names):
        if len(chunk) > 1 and _ingest_together(db, [p for p, _ in chunk], [n for _, n in chunk], judged_rows_only):
            continue
        for path, name in chunk:
            ingest.ingest_run(db, path, name, strict=False, judged_rows_only=judged_rows_only, digest=False,
                              read_ir_metadata=False)


def _chunks(paths: "list[Path]", names: list[str]) -> "Iterator[list[tuple[Path, str]]]":
    """(path, name) pairs in order, in chunks of about STAGE_TOGETHER_BYTES of files (a file that
    cannot be sized counts as a large one: ingest_run says what is wrong with it)."""
    chunk: list[tuple[Path, str]] = []
    held = 0
    for path, name in zip(paths, names):
        size = input_size([path])
        size = STAGE_TOGETHER_BYTES if size is None else size
        if chunk and held + size > STAGE_TOGETHER_BYTES:
            yield chunk
            chunk, held = [], 0
        chunk.append((path, name))
        held += size
    if chunk:
        yield chunk


def _ingest_together(db: OneShotDatabase, paths: "list[Path]", names: list[str], judged_rows_only: bool) -> bool:
    """The batch read of ingest_runs; False (nothing stored) where it does not apply."""
    distinct = list(dict.fromkeys(paths))
    first_tags: dict[Path, str] = {}
    may_hold = dict.fromkeys(ingest._FIELD_BREAKING_BYTES, False)
    for path in distinct:
        try:
            ingest._check_name(path)
            text = ingest.read_input(path, digest=False).holds
        except IrwError:
            return False  # said by ingest_run, in the order the files were given
        if not isinstance(text, ingest.TextScan) or text.long_line is not None or text.has_line_problems \
                or text.mixed_line_ends:
            return False
        tag = ingest._first_line_tag(path)
        if tag is None:
            return False
        first_tags[path] = tag
        for key in may_hold:
            may_hold[key] = may_hold[key] or text[key]
    file_ids = {path: i for i, path in enumerate(distinct)}
    db.load_rows("oneshot_run_files", ONESHOT_RUN_FILE_COLUMNS,
                 [(file_ids[p], str(p), t) for p, t in first_tags.items()])
    db.run_file("ingest/line_mode.sql")
    db.run_file("ingest/run_field_rules.sql")
    try:
        db.run_file("oneshot/stage_runs.sql", {"path": [str(p) for p in distinct], "skip": 0,
                                               "compression": "none", "strict": False,
                                               **{f"may_hold_{key}": value for key, value in may_hold.items()}})
        clean = db.run_file("oneshot/staged_runs_clean.sql").fetchone()[0] == len(distinct)
    except DuckDBError:
        clean = False
    if not clean:
        db.run_file("oneshot/drop_staged_run_columns.sql")
        return False
    rows = []
    for position, (path, name) in enumerate(zip(paths, names)):
        date = ingest.file_date(path)
        rows.append((position, name, file_ids[path], first_tags[path], str(path.resolve()), date.value, date.source))
    db.load_rows("oneshot_runs", ONESHOT_RUN_COLUMNS, rows)
    with db.transaction():
        db.run_file("oneshot/insert_runs.sql")
        db.run_file("oneshot/insert_run_queries.sql")
        db.run_file("oneshot/insert_run_rows.sql", {"judged_rows_only": judged_rows_only})
        db.run_file("oneshot/link_judged_rows.sql")
        db.run_file("oneshot/count_runs.sql")
    db.run_file("oneshot/drop_staged_run_columns.sql")
    return True
