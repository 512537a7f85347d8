"""How `irw serve` reaches the warehouse: opened for each request and closed after it, never held.

DuckDB lets one process write a file, or several processes read it, never both: a server that
kept the file open would stop every `irw ingest` and `irw eval` for as long as it runs. So each
request opens the warehouse, reads what its page needs and closes it; another process's ingest
between two requests is on the next page. A file another process is writing is retried for a
moment (busy_wait), then the request fails with WarehouseBusy (the page says so, status 503). A
PostgreSQL server that cannot be connected to (down, restarting) is ServerUnreachable (the engine's
error, warehouse/errors.py), a 503 too: the fault is the server's, not the request's, and a health
check sees it so. A server that answers and refuses the login or the database (a wrong password, a
role or database gone: WarehouseOpenError) is a 500 saying that the URL `irw serve` was started with
needs fixing: no later try connects.

Pages read on the sandbox (warehouse/engines/duckdb.py: read-only, nothing outside the warehouse; the
SQL console's connection too). When a page needs scores the warehouse lacks (a measure chosen in
the URL that no `irw eval` computed), the sandbox says so (ReadOnlyError), and the page is built
once more on a connection that may write, which computes them and stores them as `irw eval`
would (with the significance tests the report stores beside them). One such pass at a time in
this process (a lock), so two requests never compute the same scores at once: the second finds
them stored. Where no connection may write (a file this process cannot write, a PostgreSQL role
that only reads), ScoresMissing says which `irw eval` command stores them; so it does where the
page's may_store refuses (app.py: a measure chosen in the URL that is neither one of trec_eval's
usual measures nor stored for any run, which a request may not add: else any visitor could grow
the warehouse without bound with GETs).

DuckDB keeps one configuration per file within a process (a read-only sandbox and a writing
connection cannot be open at once), so on a DuckDB file the writing pass waits until the
requests reading have closed their connections, and requests arriving meanwhile wait for it.
PostgreSQL has no such limit: each request has its own connection.
"""
from __future__ import annotations

import gc
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator, Sequence, TypeVar

from warehouse.formats.escaping import shell_word
from warehouse.core import Warehouse
from warehouse.errors import (IrwError, QueryTimeoutError, ReadOnlyError, ServerUnreachable, WarehouseLocked,
                              WarehouseOpenError)
from warehouse import engines
from warehouse.evaluation.eval_command import SERVER_DB, eval_command
from warehouse.formats.table import Table

T = TypeVar("T")


class WarehouseBusy(IrwError):
    """Another process holds the warehouse file for writing (an ingest, an evaluation)."""


class ScoresMissing(IrwError):
    """A page needs scores the warehouse lacks, and no connection here may store them: the lines
    say which (each a line of its own on the page), command is the `irw eval` that stores them,
    and how_to_run what its reader must do first ('' when the command runs as shown)."""

    def __init__(self, lines: str | Sequence[str], command: str, how_to_run: str = ""):
        lines = [lines] if isinstance(lines, str) else list(lines)
        super().__init__("\n".join(lines))
        self._lines = lines
        self.command = command
        self.how_to_run = how_to_run


def _never_computed(exc: ReadOnlyError) -> list[str]:
    """The lines of a read-only evaluation's error that say which scores were never computed,
    without its own line saying what stores them: the page shows its command (needs()) instead."""
    return list(exc.never_computed or exc.message_lines())


class QueryTimeout(IrwError):
    """A SQL-console statement ran longer than the server's timeout and was cut."""


SQL_MAX_ROWS = 10_000  # rows of a console statement served; `irw sql` prints them all
# the bytes of a console statement's rows served (their text, about what a page or CSV holds): a
# walk's `select repeat('x', 200000000) from range(3)`, three rows, took the server to 2.5 GB
SQL_MAX_BYTES = 20_000_000
SQL_CHUNK_ROWS = 256  # rows read at a time, so that no more than the cap and a chunk are held
# console statements run at once: each holds one of the server's worker threads for up to its
# timeout, and a walk's 42 slow ones at once held every thread, the index page taking 8.5 s
SQL_AT_ONCE = 4


class ConsoleBusy(IrwError):
    """SQL_AT_ONCE console statements are running: try again when one has ended."""


class ResultTooLarge(IrwError):
    """A console statement's first row alone is larger than SQL_MAX_BYTES."""


def value_bytes(value) -> int:
    """About the bytes a value takes on a page or in CSV: its text's length (8 for a number)."""
    if value is None or isinstance(value, (bool, int, float)):
        return 8
    return len(value) if isinstance(value, (str, bytes)) else len(str(value))


class WarehouseAccess:
    """Per-request access to one warehouse (a DuckDB file or a PostgreSQL URL)."""

    def __init__(self, target: str, *, busy_wait: float = 3.0, sql_timeout: float = 10.0):
        self.target = target
        # DuckDB's sandbox is a connection of this process, which cannot be open beside a writing one
        # on the same file: requests take turns here (_session); a server's sessions need no turns
        self.in_process = not engines.on_server(target)
        self.busy_wait = busy_wait
        self.sql_timeout = sql_timeout
        self._console_slots = threading.BoundedSemaphore(SQL_AT_ONCE)
        self._compute = threading.Lock()        # one pass that may store scores at a time
        self._gate = threading.Condition()      # DuckDB: readers together, or one writer alone
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0
        self.may_write: bool | None = None      # False once no connection here could write

    @property
    def read_statements(self) -> str:
        """The statements the SQL console runs on this warehouse's engine, as its page says them."""
        return engines.engine_class(self.target).read_statements

    @property
    def shown(self) -> str:
        """The warehouse as a page may show it (a PostgreSQL URL without its password)."""
        return engines.shown(self.target)

    # -- the in-process gate (DuckDB only) ---------------------------------------------------------
    @contextmanager
    def _session(self, write: bool) -> Iterator[None]:
        if not self.in_process:
            yield
            return
        with self._gate:
            if write:
                self._writers_waiting += 1
                self._gate.wait_for(lambda: not self._writing and self._readers == 0)
                self._writers_waiting -= 1
                self._writing = True
            else:
                self._gate.wait_for(lambda: not self._writing and self._writers_waiting == 0)
                self._readers += 1
        try:
            yield
        finally:
            with self._gate:
                if write:
                    self._writing = False
                else:
                    self._readers -= 1
                self._gate.notify_all()

    def _open(self, write: bool, console: bool = False) -> Warehouse:
        """The warehouse, opened now: the sandbox (write=False; console: the SQL console's, also
        on PostgreSQL) or a connection that may write; a file another process is writing is tried
        again until busy_wait has passed."""
        deadline = time.monotonic() + self.busy_wait
        while True:
            try:
                if write:
                    return Warehouse(self.target, create=False)
                if not self.in_process and not console:
                    return Warehouse(self.target, read_only=True)
                return Warehouse(self.target, sandboxed=True)
            except WarehouseLocked as exc:
                if time.monotonic() >= deadline:
                    raise WarehouseBusy(f"the warehouse is busy: {exc}; load the page again in a moment") from None
                time.sleep(0.05)
            except WarehouseOpenError as exc:
                if isinstance(exc, ServerUnreachable):  # its own message, and what a page's reader may do
                    raise ServerUnreachable(
                        f"{exc}; this server could not connect to the warehouse's database server (down, "
                        "restarting, or refusing connections): load the page again in a moment, and if this "
                        "goes on, ask whoever runs the database server") from None
                if not self.in_process:  # the server answered, and refused this server's role or database
                    raise WarehouseOpenError(
                        f"{exc}; this server cannot open the warehouse with the URL it was started with (`irw serve "
                        "--db URL`), whatever the page, so loading it again will not help: ask whoever runs this "
                        "server to fix that URL (its role, password or database) or the database server's "
                        "settings") from None
                # DuckDB frees a closed connection's database when nothing refers to it any more: an
                # error's traceback in another thread can keep the other configuration alive a moment
                if "configuration" not in str(exc) or time.monotonic() >= deadline:
                    raise
                gc.collect()
                time.sleep(0.02)

    def learn_measures(self) -> None:
        """Makes the measures added to the warehouse since a request last opened it known to measure
        parsing (opening it registers them: core.Warehouse), for what a handler parses before
        opening it (a leaderboard's columns)."""
        with self._session(False):
            with self._open(False):
                pass

    # -- pages ------------------------------------------------------------------------------------
    def page(self, build: Callable[[Warehouse], T], needs: Callable[[], str],
             may_store: Callable[[Warehouse], str] | None = None) -> T:
        """build(warehouse), on the sandbox; when it lacks scores, once more where they may be
        stored. needs() is the `irw eval` command that stores them, for when they may not. Once a
        pass finds that no connection here may write, may_write is False: a build may then do
        without what it would only have liked stored (a leaderboard's tie ranges), and is given
        the sandbox once more before the page says what to run. may_store(warehouse), asked on
        the sandbox before any pass that may write: '' when a request may store what the page
        lacks, else why not (ScoresMissing says it, with needs())."""
        from warehouse.evaluation.user_measures import time_limit

        # a user measure's SQL computed for a page is cut as the console's is: one that never ends
        # would hold the warehouse, and with it every page, on DuckDB
        with time_limit(self.sql_timeout):
            return self._page(build, needs, may_store)

    def _page(self, build: Callable[[Warehouse], T], needs: Callable[[], str],
              may_store: Callable[[Warehouse], str] | None = None) -> T:
        try:
            with self._session(False):
                with self._open(False) as wh:
                    return build(wh)
        except ReadOnlyError as exc:
            missing = _never_computed(exc)  # not the error: its traceback would hold the sandbox's objects
        if may_store is not None:
            with self._session(False):
                with self._open(False) as wh:
                    refused = may_store(wh)
            if refused:
                raise ScoresMissing(refused, needs(), self.how_to_run(writes=True))
        with self._compute, self._session(True):
            try:
                wh = self._open(True)
            except WarehouseBusy:
                raise
            except WarehouseOpenError:  # a file this process may not write
                wh = None
            if wh is not None:
                with wh:
                    if not wh.db.read_only:  # else a PostgreSQL role that only reads
                        try:
                            return build(wh)
                        except ReadOnlyError as exc:
                            raise ScoresMissing(_never_computed(exc), needs(),
                                                self.how_to_run(writes=True)) from None
            first_time = self.may_write is not False
            self.may_write = False
        if first_time:
            try:
                with self._session(False):
                    with self._open(False) as wh:
                        return build(wh)
            except ReadOnlyError as exc:
                missing = _never_computed(exc)
        raise ScoresMissing(missing, needs(), self.how_to_run(writes=True))

    # -- the commands a page shows ----------------------------------------------------------------
    def _location_runs_as_shown(self, writes: bool) -> bool:
        """A command may name the warehouse as this page shows it: a file's path is that warehouse
        for whoever runs the command; a server's URL also names a role and is shown without its
        password, so only a URL that hides nothing, of a role not found to only read."""
        if self.in_process:
            return True
        return self.shown == self.target and not (writes and self.may_write is False)

    def db_argument(self, writes: bool = False) -> str:
        """--db's value in a command a page shows, quoted for a shell: the warehouse as shown, or
        "$IRW_DB" where that would not run (how_to_run says what to set it to)."""
        return shell_word(self.shown) if self._location_runs_as_shown(writes) else SERVER_DB

    def how_to_run(self, writes: bool = False) -> str:
        """What a reader of a command a page shows must do first (writes: the command stores scores);
        '' when it runs as shown."""
        if self.in_process:
            return (f"A user who may write {self.shown} must run it: this server cannot write to it."
                    if writes and self.may_write is False else "")
        if self._location_runs_as_shown(writes):
            return ""
        if not writes:
            return (f"First set IRW_DB to the warehouse's URL, this server's ({self.shown}) with the password "
                    "a page never shows.")
        role = ", as this server's role may not" if self.may_write is False else ""
        return (f"Run it as a role that may write to the warehouse{role}: first set IRW_DB to this server's URL "
                f"({self.shown}) with the user name and password of a role that may write in place of its own.")

    def sql_command(self, query: str) -> str:
        """The `irw sql` command that prints every row of a console statement."""
        return " ".join(["irw", "sql", "--db", self.db_argument(), shell_word(query)])

    def eval_command(self, qrels: str, measures: Sequence[str], runs: Sequence[str] = ()) -> str:
        """The `irw eval` command that stores these scores (a page's, of the default settings), as
        every message that shows one spells it (warehouse/evaluation/eval_command.py)."""
        return eval_command(self.db_argument(writes=True), qrels, measures, runs)

    # -- the SQL console ----------------------------------------------------------------------------
    def sql(self, query: str, timeout: float | None = None) -> tuple[Table, bool]:
        """One read-only statement, as `irw sql` runs it (Warehouse.sql on the sandbox), cut after
        timeout seconds (the server's sql_timeout by default): QueryTimeout. Its first SQL_MAX_ROWS
        rows, and whether it had more: a statement of millions of rows ran within the timeout and
        then took a minute and half a gigabyte to send, while every other request waited. So are
        its rows within SQL_MAX_BYTES; a first row larger than that alone is refused. At most
        SQL_AT_ONCE statements run at once; one more is ConsoleBusy."""
        from warehouse.store import adhoc

        timeout = self.sql_timeout if timeout is None else timeout
        if not self._console_slots.acquire(blocking=False):
            raise ConsoleBusy(f"the SQL console runs {SQL_AT_ONCE} statements at a time, and as many are running: "
                              "try again when one has ended, or run it with `irw sql`")
        try:
            with self._session(False):
                with self._open(False, console=True) as wh:
                    try:  # the library's timeout: DuckDB interrupted, PostgreSQL cancelled on the server
                        with adhoc.stream(wh.db, query, None, timeout, chunk_rows=SQL_CHUNK_ROWS) as stream:
                            return self._served_rows(stream, query)
                    except QueryTimeoutError:
                        raise QueryTimeout(f"the query ran longer than {timeout:g} s and was cut; "
                                           "narrow it (a WHERE, a LIMIT) or run it with `irw sql`") from None
        finally:
            self._console_slots.release()

    def _served_rows(self, stream, query: str) -> tuple[Table, bool]:
        """The rows a console statement serves: its first SQL_MAX_ROWS, within SQL_MAX_BYTES."""
        rows: list[tuple] = []
        size, more = 0, False
        for chunk in stream.chunks:
            for row in chunk:
                size += sum(value_bytes(value) for value in row)
                if len(rows) == SQL_MAX_ROWS or size > SQL_MAX_BYTES:
                    more = True
                    break
                rows.append(row)
            if more:
                break
        if more and not rows:
            raise ResultTooLarge(
                f"the query's first row alone holds about {size / 1e6:,.0f} MB, more than the "
                f"{SQL_MAX_BYTES / 1e6:,.0f} MB a console answer holds; narrow it, or run it with "
                f"`{self.sql_command(query)}`")
        table = Table(stream.columns, rows, stream.types)
        table.arrow_types = stream.arrow_types
        return table, more
