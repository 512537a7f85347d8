"""Ctrl-C for the `irw` command: every command ends within a second, exit 130, nothing half-written.

Python turns SIGINT into an exception only when the main thread next runs Python code, and a
DuckDB query or a PostgreSQL statement can keep it in C for minutes. So install() (called by the
command's entry point, warehouse/__main__.py; a library user keeps Python's own handling) does two
things: signal.set_wakeup_fd wakes a watcher thread at the signal itself, which interrupts every
DuckDB connection irw has open (connection.interrupt()) and cancels every PostgreSQL statement under
way (psycopg's cancel, sent to the server); and the handler raises Interrupted in the main thread,
which every `with` on the way out unwinds as any error: transactions roll back, temporary files and
folders are removed. Interrupted is not a KeyboardInterrupt, so Click does not turn it into its
"Aborted!" and exit 1: the entry point says it and exits 130 (128 + SIGINT), as a shell expects.

Threads irw starts for itself (the gzip and zstd checks beside DuckDB's read, the writers of the
FIFOs DuckDB reads .bz2 and .xz text from) look at `requested` between chunks and stop.
"""
from __future__ import annotations

import os
import signal
import threading
from typing import Any

EXIT_STATUS = 130  # 128 + SIGINT
requested = threading.Event()
_ended_by_the_command = threading.Event()
_open: dict[int, Any] = {}  # id -> a DuckDB connection or a psycopg connection irw has open
_lock = threading.Lock()
_installed = False


class Interrupted(BaseException):
    """Ctrl-C (SIGINT) in the irw command."""


def end_here() -> None:
    """Ctrl-C is how this command ends (irw serve is stopped so): the entry point exits as the
    command does, not 130. A flag of its own rather than clearing `requested`: the watcher thread
    may set that again after the command has handled the same Ctrl-C."""
    _ended_by_the_command.set()


def pending() -> bool:
    """A Ctrl-C came, and no command took it as its way to end."""
    return requested.is_set() and not _ended_by_the_command.is_set()


def register(connection: Any) -> None:
    """A connection to interrupt (DuckDB) or cancel (PostgreSQL) at Ctrl-C, until unregister()."""
    with _lock:
        _open[id(connection)] = connection


def unregister(connection: Any) -> None:
    with _lock:
        _open.pop(id(connection), None)


def _stop_everything() -> None:
    requested.set()
    with _lock:
        connections = list(_open.values())
    for connection in connections:
        try:
            if hasattr(connection, "interrupt"):
                connection.interrupt()  # DuckDB: the running query fails with an interrupt error
            else:
                cancel = getattr(connection, "cancel_safe", None) or connection.cancel
                cancel()  # psycopg: the server cancels the statement under way
        except Exception:
            pass  # closed meanwhile, or nothing running


def _watch(read_fd: int) -> None:
    while True:
        try:
            data = os.read(read_fd, 64)
        except InterruptedError:
            continue
        except OSError:
            return
        if not data:
            return
        if signal.SIGINT in data:
            _stop_everything()


def _handler(signum, frame) -> None:
    requested.set()
    raise Interrupted()


def install() -> None:
    """Ctrl-C as the module docstring says, for this process (the main thread only; once)."""
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    for fd in (read_fd, write_fd):
        os.set_inheritable(fd, False)
    signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    signal.signal(signal.SIGINT, _handler)
    threading.Thread(target=_watch, args=(read_fd,), name="irw-interrupt", daemon=True).start()
    _installed = True
