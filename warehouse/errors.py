"""Typed errors. The library raises these; the CLI turns them into a message and an exit code."""
from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Iterator

# Whether an error is said to the irw command's user (its options: `--replace`, `--qrels dl19`) or to
# a Python caller (the arguments: `replace=True`, `qrels='dl19'`). The library words its messages
# for the command; the command sets this while it runs (warehouse/commands/irw.py, trec_eval.py),
# and everywhere else an error's text is said in Python terms (python_terms).
_COMMAND_LINE: ContextVar[bool] = ContextVar("irw_command_line", default=False)


@contextmanager
def command_line_terms() -> Iterator[None]:
    """Within the block, errors are said as the irw command says them (its options)."""
    token = _COMMAND_LINE.set(True)
    try:
        yield
    finally:
        _COMMAND_LINE.reset(token)


def said_to_the_command_line() -> bool:
    return _COMMAND_LINE.get()


# the irw commands a message names that a Python caller does as a call (whole backquoted commands)
_CALLS = {"irw runs": "wh.runs()", "irw qrels": "wh.qrels_sets()", "irw measures list": "wh.user_measures()",
          "irw ingest qrels FILE --name NAME": "wh.ingest_qrels(FILE, NAME)",
          "irw ingest qrels FILE": "wh.ingest_qrels(FILE, NAME)", "irw ingest run FILE...": "wh.ingest_runs(FILES)"}
# an option and its value, as the keyword argument of the Python call that takes it
_KEYWORDS = [
    (re.compile(r"--name-template ('[^']*')"), r"name_template=\1"),
    (re.compile(r"--name-from (\w+)"), r"name_from='\1'"),
    (re.compile(r"--qrels ([^\s`),;:]+)"), r"qrels='\1'"),
    (re.compile(r"--replace(?![\w-])"), "replace=True"),
    (re.compile(r"--timeout SECONDS"), "timeout=SECONDS"),
    (re.compile(r"\(-m\), e\.g\. -m (\S+) -m (\S+)"), r"(measures=), e.g. measures=['\1', '\2']"),
    (re.compile(r"--from and --to(?![\w-])"), "source and target"),  # warehouse.copy's arguments
    (re.compile(r"--from(?![\w-])"), "source"),
    # "(from --date)" is a run date's stored source (runs.date_source), not an option, and stays
    (re.compile(r"(?<!from )--(name|system|description|date|qrels|baseline|param)(?![\w-])"),
     lambda m: ("parameters" if m.group(1) == "param" else m.group(1)) + "="),
]
# what `irw sql`'s refusals advise (warehouse/store/adhoc.py), as wh.sql's caller does it
_SQL_PHRASES = [
    ("use irw ingest / irw rm to change the warehouse",
     "use wh.ingest_run, wh.ingest_qrels or wh.remove_run to change the warehouse"),
    ("irw sql -o FILE writes a query's result to a file and irw export the warehouse's tables; irw ingest adds data",
     "wh.sql returns a Table (to_pandas, to_arrow) to write where you like and wh.export(FOLDER) writes the "
     "warehouse's tables; wh.ingest_run adds data"),
    ("irw sql reads the one warehouse --db names; irw copy moves runs and qrels between warehouses",
     "wh.sql reads the one warehouse wh is; warehouse.copy(SOURCE, TARGET) moves runs and qrels between warehouses"),
    ("; in Python, wh.sql(query, params) binds values", "; wh.sql(query, params) binds values"),
    ("--timeout sets irw sql's time limit", "timeout= sets wh.sql's time limit"),
]
_IRW_SQL = re.compile(r"\birw sql\b")
_QUOTED = re.compile(r"(`[^`\n]*`)")


def python_terms(text: str) -> str:
    """A message worded for the irw command, said to a Python caller: an option becomes the keyword
    argument that does the same (`--replace`: `replace=True`, `--qrels dl19`: `qrels='dl19'`), and a
    listing command its call (`irw runs`: `wh.runs()`). A whole command in backquotes (`irw ingest
    run FILE --name X`) stays: it runs as printed, in a shell."""
    if "(Python)" in text:  # it names each interface's way already
        return text
    parts = _QUOTED.split(text)
    for i, part in enumerate(parts):
        quoted = i % 2 == 1
        inner = part[1:-1] if quoted else part
        if quoted and inner in _CALLS:
            parts[i] = f"`{_CALLS[inner]}`"
        elif not (quoted and inner.startswith("irw ")):
            if not quoted:
                for command, call in _SQL_PHRASES:
                    inner = inner.replace(command, call)
                inner = _IRW_SQL.sub("wh.sql", inner)
            for pattern, keyword in _KEYWORDS:
                inner = pattern.sub(keyword, inner)
            parts[i] = f"`{inner}`" if quoted else inner
    return "".join(parts)


class Note(UserWarning):
    """What the library says beside a result that is no error (a document left out of a folder's
    runs, a user measure that gave no row): a warning to a Python caller, a line on stderr of the
    irw command (warehouse/__main__.py)."""


class IrwError(Exception):
    """Base class of every error irw reports to a user. Its text is the command's words when it was
    raised while the irw command ran (command_line_terms), else a Python caller's (python_terms),
    wherever it is printed."""

    exit_code = 1
    _lines: "list[str] | None" = None
    _command_line = False

    def __new__(cls, *args, **kwargs):
        error = super().__new__(cls, *args, **kwargs)
        error._command_line = said_to_the_command_line()
        return error

    def __str__(self) -> str:
        text = Exception.__str__(self)  # not a KeyError's quoted key (NotEvaluated)
        return text if self._command_line else python_terms(text)

    @classmethod
    def of_lines(cls, lines: "list[str]") -> "IrwError":
        """The error whose message is these lines (each a problem of its own)."""
        error = cls("\n".join(lines))
        error._lines = list(lines)
        return error

    def message_lines(self) -> list[str]:
        """The message as the lines it was made of. A line is one line whatever a name inside it
        holds: a run named "a\nError: b" stays in its line, which the CLI escapes whole
        (warehouse/formats/escaping.py), so no name can split a message or forge a line of its own."""
        if self._lines is None:
            return [str(self) or type(self).__name__]
        return list(self._lines) if self._command_line else [python_terms(line) for line in self._lines]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input file, located at file:line (line 0: the file as a whole)."""

    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}" if self.line else f"{self.path}: {self.reason}"


class InputFileError(IrwError):
    """An input file cannot be ingested. Nothing was changed."""

    MAX_SHOWN = 20

    def __init__(self, problems: list[Problem], total: int | None = None, *, read_lines: int | None = None,
                 hint: Problem | None = None):
        """read_lines: the file was refused after its first read_lines lines (total counts the
        problems there), the rest unread. hint: what to do about the problems, said after them (no
        problem itself: not in problems or total)."""
        self.problems = problems[: self.MAX_SHOWN]
        self.total = max(total or 0, len(problems))
        self.read_lines = read_lines
        self.hint = hint
        lines = [str(p) for p in self.problems]
        if read_lines is not None and self.total > len(self.problems):
            lines.append(f"... and {self.total - len(self.problems)} more problems in its first {read_lines:,} "
                         "lines; the rest of the file was not read")
        elif read_lines is not None:
            lines.append(f"... no other problem in its first {read_lines:,} lines; the rest of the file was not read")
        elif self.total > len(self.problems):
            lines.append(f"... and {self.total - len(self.problems)} more problems")
        if hint is not None:
            lines.append(str(hint))
        super().__init__("\n".join(lines))
        self._lines = lines


class SchemaVersionError(IrwError):
    """The warehouse was written by a newer irw, or cannot be migrated as opened."""


class WarehouseNotFound(IrwError):
    """A read-only open of a warehouse file that does not exist."""


class WarehouseOpenError(IrwError):
    """The warehouse file exists but cannot be opened: not a DuckDB file, or another process holds it."""


class NotAWarehouse(WarehouseOpenError):
    """The path names something that is not an irw warehouse: a directory, a FIFO or device, a file
    that is not DuckDB's, or a DuckDB database of someone else's (irw never adds its tables to it)."""


class ServerUnreachable(WarehouseOpenError):
    """No connection to the warehouse's database server could be made (down, restarting, refusing
    connections or this login): the fault is not the location's form, and a later try may connect."""


class WarehouseLocked(WarehouseOpenError):
    """Another process has the warehouse file open in a way DuckDB does not let this open share
    (or this process has it open the other way)."""

    holder_pid: "int | None" = None   # the other process, where DuckDB names it
    holder: str = ""                  # it, as the message says it


class WarehouseClosed(IrwError):
    """The warehouse was used after close()."""


class DatabaseError(IrwError):
    """DuckDB failed on the warehouse file: damaged blocks, a full disk, a folder it cannot write."""


class WarehouseDamaged(DatabaseError):
    """The warehouse file is damaged (DuckDB found blocks whose checksums do not match)."""


class NotFoundError(IrwError):
    """A named run, qrels set or measure does not exist."""


class NotEvaluated(NotFoundError, KeyError):
    """Evaluation.value of a run or measure the evaluation does not hold (a KeyError too, as the
    lookup it is)."""

    __str__ = NotFoundError.__str__


class ConflictError(IrwError):
    """A name is taken by different content; --replace resolves it."""


class ReadOnlyError(IrwError):
    """A write was attempted on a warehouse open read-only (the read-only SQL interface, a role that
    may only read). never_computed: for scores a read-only evaluation lacks, the lines saying which,
    without the last one saying what stores them (irw serve's page shows its own command)."""

    never_computed: list[str] | None = None


class QueryError(IrwError):
    """Ad-hoc SQL failed in the database."""


class UnknownTableError(QueryError):
    """Ad-hoc SQL names a table or view the warehouse does not hold (its message then lists those
    it holds: warehouse/store/adhoc.py)."""


class QueryTimeoutError(QueryError):
    """Ad-hoc SQL ran longer than its timeout and was stopped (DuckDB) or cancelled on the server
    (PostgreSQL)."""


class MeasureError(IrwError):
    """A measure name or parameter cannot be understood: a usage error, as a bad option value is."""

    exit_code = 2


class MeasureValueError(MeasureError):
    """A measure rightly named gives no value here: its SQL's values are refused (a user measure's
    text, infinity or second row for a query), the qrels lack what it needs (preferences, judgment
    groups, grades gdeval takes), no query of a run is judged, or its definition changed under
    the evaluation. The measure's, the data's or another client's doing, not the command line's."""

    exit_code = 1


class RowsNotStoredError(IrwError):
    """A measure was asked of a run whose rows the warehouse does not hold (evaluated on Spark)."""


class UsageError(IrwError):
    """Options that do not fit together."""

    exit_code = 2


class SettingError(UsageError):
    """A setting's value is refused (Settings, StatsSettings: a keyword of the Python API, an option
    of a command). The message names the keyword (`level takes ...`); a command names its own
    option instead (`--level takes ...`, trec-eval's `-l takes ...`) with said_as."""

    def __init__(self, setting: str, refusal: str):
        self.setting, self.refusal = setting, refusal
        super().__init__(f"{setting} {refusal}")

    def said_as(self, option: str) -> UsageError:
        return UsageError(f"{option} {self.refusal}")


class MissingExtraError(IrwError, ImportError):
    """An optional library (pandas, polars, pyarrow, pyspark) is needed and not installed. An
    ImportError too, as the failed import it is: a notebook's `except ImportError:` fallback
    catches it."""


def install_command(extra: str) -> str:
    """The command that installs an extra of irwarehouse (pyproject.toml) into the Python running
    irw: from a checkout (the package's folder beside pyproject.toml, as `pip install -e .` leaves
    it), `PYTHON -m pip install -e 'CHECKOUT[extra]'`; from an installed package,
    `PYTHON -m pip install 'irwarehouse[extra]'`, which keeps the installed irwarehouse and adds what
    the extra lists."""
    from warehouse.formats.escaping import shell_word
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    python = shell_word(sys.executable or "python3")
    if (root / "pyproject.toml").is_file() and 'name = "irwarehouse"' in (root / "pyproject.toml").read_text():
        return f"{python} -m pip install -e {shell_word(f'{root}[{extra}]')}"
    return f"{python} -m pip install 'irwarehouse[{extra}]'"


class BatchError(IrwError):
    """Files of a batch (`irw ingest run FILE... / FOLDER`) cannot be ingested: every problem, each
    naming its file. Nothing was stored, unless the last line says what was.

    lines: the message's lines, each file's problems (`path:line: reason`, as InputFileError says
    them) and last the line saying what was stored. They are text, not Problems: the batch gathers
    each file's error as the lines it says (warehouse/ingestion/batch.py, _fail), and a problem of a
    name or of the batch as a whole has no line of a file."""

    def __init__(self, lines: list[str], stored: "list | None" = None):
        self.lines = lines
        super().__init__("\n".join(lines))
        self._lines = lines
        # the IngestResults of the files stored before the refusal (a backfill's earlier nights),
        # whose messages are said as those of a batch stored whole are
        self.stored = stored or []


class ServeError(IrwError):
    """`irw serve` cannot listen where it was asked: the port is another server's, or the address
    is not this machine's."""


class OutputError(IrwError):
    """An output file (a report) cannot be written: its folder, permissions or the disk. Nothing
    half-written is left behind."""
