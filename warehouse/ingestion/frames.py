"""Runs and qrels from data frames (pandas, polars, Arrow) with the column names users already have.

A frame is written as a TREC file by DuckDB (which reads all three without copying through
Python) and ingested by the very path a file takes, so every rule of docs/input-formats.md holds (fields,
finite scores, integer grades, duplicates); problems name the frame's row (0-based position)
instead of a line. Column names are matched against the lists below, never formatted into SQL
from the frame itself.
"""
from __future__ import annotations

import dataclasses
import os
import re
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from warehouse.errors import ConflictError, InputFileError, Problem, UsageError, python_terms
from warehouse.resources import composed_sql, read_sql

# role -> accepted column names, in order of preference: irw's own, PyTerrier's, ir_datasets', TREC's.
RUN_COLUMNS = {
    "query": ("query_id", "qid", "query"),
    "doc": ("doc_id", "docno", "docid", "doc"),
    "score": ("score",),
    "rank": ("rank", "rank_given"),
}
QRELS_COLUMNS = {
    "query": ("query_id", "qid", "query"),
    "doc": ("doc_id", "docno", "docid", "doc"),
    "grade": ("grade", "relevance", "label", "rel", "judgment"),
}
FRAME_MODULES = ("pandas", "polars", "pyarrow")
# runs.date_source of a run ingested from a frame without a date (its date: when it was ingested)
DATE_FRAME = "data frame"


def is_frame(value: Any) -> bool:
    """A pandas or polars DataFrame, or an Arrow Table / RecordBatch (checked without importing them)."""
    module = type(value).__module__.split(".")[0]
    return module in FRAME_MODULES and type(value).__name__ in ("DataFrame", "Table", "RecordBatch")


@dataclass(frozen=True)
class FrameProblem(Problem):
    """A problem at a row of a data frame (line = the row's 0-based position)."""

    def __str__(self) -> str:
        return f"{self.path} row {self.line}: {self.reason}"


def _columns(con, roles: dict[str, tuple[str, ...]], required: tuple[str, ...], what: str) -> dict[str, str]:
    types = {row[0]: row[1] for row in con.execute(read_sql("frames/describe.sql")).fetchall()}
    present = list(types)
    chosen = {}
    for role, names in roles.items():
        found = next((n for n in names if n in present), None)
        if found is None and role in required:
            raise UsageError(f"the {what} frame has no {role} column: {name_one_of(names)} "
                             f"(it has {', '.join(present) or 'no columns'})")
        if found is not None:
            chosen[role] = found
    refuse_float_ids(what, chosen, types, "pandas: frame.astype({{'{column}': 'int64'}})")
    return chosen


def name_one_of(names: tuple[str, ...]) -> str:
    """How a frame missing a role's column is told to name it (`name one of score` said of one name)."""
    return f"name it {names[0]}" if len(names) == 1 else f"name one of {', '.join(names)}"


def empty_frame(label: str) -> InputFileError:
    """A frame of no rows, said as a frame (on every engine), not as the empty file it is written as."""
    return InputFileError([Problem(label, 0, "the frame has no rows")])


# the types a data frame's float column has, as DuckDB (DOUBLE, FLOAT) and Spark (double, float) name them
FLOAT_TYPES = {"double", "float", "real", "float4", "float8"}


def refuse_float_ids(what: str, chosen: dict[str, str], types: dict[str, str], cast_example: str) -> None:
    """Refuses a frame whose query or document ids are floats (on every engine): a float's text is
    1.0, which no qrels file's 1 matches, so every query would go unjudged without a word (a walk's
    pandas column of ids turned float by a NaN). cast_example: how to cast, {column} its column."""
    for role in ("query", "doc"):
        column = chosen.get(role)
        if column is not None and str(types.get(column, "")).lower() in FLOAT_TYPES:
            raise UsageError(
                f"the {what} frame's {column} column holds floats ({str(types[column]).lower()}), and a float is "
                f"no id: its 1.0 would never match the 1 of a qrels file. Give the ids as integers or text "
                f"({cast_example.format(column=column)}; pandas makes a column of integers float where it "
                "holds NaN: drop those rows first)")


def _quoted(identifier: str) -> str:
    # identifier is one of the names in RUN_COLUMNS / QRELS_COLUMNS, never the user's text
    return '"' + identifier.replace('"', '""') + '"'


@contextmanager
def frame_as_file(db, frame: Any, kind: str, label: str, tag: str = "frame") -> Iterator[Path]:
    """The frame written as a TREC run (`kind` 'run') or qrels file in a temporary folder, one line
    per row in the frame's order, dated now (to the second); removed after. Values a TREC line
    cannot carry (missing, or holding whitespace) are refused here, naming their rows; everything
    else, a score `abc` of a text column too, is left to the file's rules."""
    con = db.staging.frame_connection()  # a DuckDB connection of its own (warehouse/engines/duckdb.py)
    try:
        try:
            con.register("frame_input", frame)
        except Exception as exc:  # DuckDB says why it cannot read the object
            raise UsageError(f"cannot read the {kind} frame: {str(exc).splitlines()[0]}") from None
        # the frame's row order, kept through the window functions below
        con.execute(read_sql("frames/numbered.sql"))
        roles = RUN_COLUMNS if kind == "run" else QRELS_COLUMNS
        required = ("query", "doc", "score") if kind == "run" else ("query", "doc", "grade")
        names = _columns(con, roles, required, kind)
        # the frame's columns in their roles (sql/frames/*_roles.sql), as text
        roles_file = ("frames/qrels_roles.sql" if kind != "run" else
                      "frames/run_roles_ranked.sql" if "rank" in names else "frames/run_roles.sql")
        con.execute(composed_sql(roles_file, **{role: _quoted(name) for role, name in names.items()}))
        problems: list[Problem] = []
        for role, column in names.items():  # the frame's own columns: missing values, whitespace
            for (row, value) in con.execute(composed_sql("frames/role_problems.sql", role=role)).fetchall():
                reason = (f"its {column} is missing (None or NaN)" if value is None else
                          f"its {column} {value!r} holds whitespace, which a TREC line cannot carry")
                problems.append(FrameProblem(label, row, reason))
        if problems:
            problems.sort(key=lambda p: p.line)
            raise InputFileError(problems)
        with tempfile.TemporaryDirectory(prefix="irw-frame-") as folder:
            path = Path(folder) / f"frame.{kind}"
            if "'" in str(path):  # COPY takes no parameter for its file: the path is ours, and checked
                raise UsageError(f"the temporary folder {folder} has a quote in its path; set TMPDIR elsewhere")
            con.execute(composed_sql(f"frames/{kind}_lines.sql", path=f"'{path}'"),
                        {"tag": tag} if kind == "run" else None)
            if not path.stat().st_size:
                raise empty_frame(label)
            now = int(time.time())
            os.utime(path, (now, now))  # a run's date by the file's rule: its modification time
            yield path
    finally:
        con.close()


def _as_rows(text: str, path: Path, label: str) -> str:
    """A message about the written file, told of the frame: its name, and rows for lines."""
    text = text.replace(str(path), label)
    return re.sub(r"\bline (\d+)", lambda m: f"row {int(m.group(1)) - 1}", text)


def row_problems(error: InputFileError, path: Path, label: str) -> InputFileError:
    """The file's problems as rows of the frame (line N is the frame's row N - 1)."""
    problems = [FrameProblem(label, p.line - 1, _as_rows(p.reason, path, label)) if p.line
                else Problem(label, 0, _as_rows(p.reason, path, label)) for p in error.problems]
    return InputFileError(problems, error.total, read_lines=error.read_lines)


def frame_label(kind: str, name: str | None) -> str:
    return f"{kind} frame {name}" if name else f"{kind} frame"


# a frame's run dated by the file's rule is dated when it was ingested (forget_run_source.sql)
_FRAME_DATE = re.compile(r"(its date is now [^()]* \(from )file mtime\)")


def in_python_terms(text: str) -> str:
    """A message of the file path said to a Python caller, who ingested a frame: its options as the
    call's arguments, as every error says them to a Python caller (errors.python_terms: `replace=True`
    for `--replace`), and the frame's date from the data frame (a frame has no file time)."""
    return _FRAME_DATE.sub(rf"\1{DATE_FRAME})", python_terms(text))


def _store_frame(db, frame: Any, kind: str, name: str, store, tag: str = "frame") -> Any:
    """The frame written as a file and stored by store(path) -> IngestResult, told of the frame:
    problems name its rows, messages its label instead of the temporary file, and the Python
    arguments instead of the options."""
    label = frame_label(kind, name)
    with frame_as_file(db, frame, kind, label, tag=tag) as path:
        try:
            result = store(path)
        except InputFileError as exc:
            raise row_problems(exc, path, label) from None
        except ConflictError as exc:  # the name holds other rows
            raise ConflictError(in_python_terms(_as_rows(str(exc), path, label))) from None
        return dataclasses.replace(result, path=label,
                                   messages=[in_python_terms(_as_rows(m, path, label)) for m in result.messages])


def ingest_run_frame(db, frame: Any, name: str | None, *, store, date=None) -> Any:
    """Ingests a run frame as run `name` by the file path (store(path, date) -> IngestResult, date
    None unless given). Without a date the run is dated by the file's rule, its written file's
    modification time: when it was ingested; a run stored from the frame then says it came from a
    data frame (DATE_FRAME), and keeps that date when the same rows come again (a date given
    changes it, with replace=True), as a file's bytes ingested twice are one run."""
    if not name:
        raise UsageError("a run from a data frame needs a name: ingest_run(frame, name=...)")
    result = _store_frame(db, frame, "run", name, lambda path: store(path, date), tag=re.sub(r"\s+", "_", name))
    if result.status in ("ingested", "replaced"):  # the frame's rows were stored: not a file's
        with db.transaction():
            db.run_file("frames/forget_run_source.sql", {"name": name, "dated": date is not None,
                                                          "data_frame": DATE_FRAME})
    return result


def ingest_qrels_frame(db, frame: Any, name: str | None, *, store) -> Any:
    """Ingests a qrels frame as qrels set `name` by the file path (store(path) -> IngestResult)."""
    if not name:
        raise UsageError("qrels from a data frame need a name: ingest_qrels(frame, name=...)")
    result = _store_frame(db, frame, "qrels", name, store)
    with db.transaction():
        db.run_file("frames/forget_qrels_source.sql", {"name": name})
    return result
