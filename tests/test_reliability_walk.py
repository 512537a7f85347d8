"""What a walk of things going wrong found: an output written over the warehouse's WAL (which holds
what a killed command committed), and Ctrl-C, the documented way to stop `irw serve`, said as a
failure."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import warehouse

from conftest import Cli, RUN_ROWS, qrels_text, run_text, write_file

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def stored(tmp_path) -> Path:
    db = tmp_path / "w.duckdb"
    with warehouse.open(db) as wh:
        wh.ingest_qrels(write_file(tmp_path, "q.txt", qrels_text()), "q")
        wh.ingest_run(write_file(tmp_path, "a.run", run_text(RUN_ROWS, tag="a")))
    return db


@pytest.mark.parametrize("where", ["w.duckdb.wal", "w.duckdb.tmp", "w.duckdb.tmp/x.csv"])
def test_sql_output_over_the_warehouse_s_wal_or_spill_folder_is_refused_before_the_query(stored, where):
    """The WAL a killed ingest left holds its committed run: `irw sql -o w.duckdb.wal` wrote its
    CSV there and the run was gone (the check ran before the warehouse was open, so it knew of no
    warehouse)."""
    wal = Path(str(stored) + ".wal")
    wal.write_bytes(b"what a killed command committed")
    result = Cli(stored)("sql", "select name from runs", "-f", "csv", "-o", str(stored.parent / where))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: cannot write {stored.parent / where}: it is ")
    assert "of the warehouse this command has open" in result.stderr and "choose another -o path" in result.stderr
    assert wal.read_bytes() == b"what a killed command committed"
    wal.unlink()
    assert Cli(stored)("runs").exit_code == 0


@pytest.mark.parametrize("where", ["w.duckdb.wal", "w.duckdb.tmp"])
def test_an_export_into_the_warehouse_s_wal_or_spill_folder_is_refused(stored, where):
    """A folder exported in place of the WAL failed every later open ("Failure while replaying WAL
    file ... Is a directory") until removed by hand."""
    target = stored.parent / where
    result = Cli(stored)("export", str(target))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: cannot export to {target}: it is the ")
    assert f"of the warehouse being exported ({stored}); name a new folder" in result.stderr
    assert not Path(str(stored) + ".wal").exists()
    assert Cli(stored)("runs").exit_code == 0


def _serve_then_ctrl_c(stored: Path, program: list[str]) -> tuple[int, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, *program, "serve", "--db", str(stored), "--port", str(port)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as page:
                    assert page.status == 200
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
                time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, err


def test_ctrl_c_stops_serve_without_an_error(stored):
    """Ctrl-C is how `irw serve` is stopped (it says so when it starts): exit 0 and a line saying it
    stopped, not 130 and "interrupted ... rolled back"."""
    status, err = _serve_then_ctrl_c(stored, ["-m", "warehouse"])
    assert status == 0, err
    assert err.splitlines()[-1] == f"stopped serving {stored}", err
    assert "interrupted" not in err


# The watcher thread that interrupts queries at Ctrl-C is woken by the same signal and may run
# late: here, for the signal uvicorn raises again once it has shut down (the one irw's handler
# turns into Interrupted), it runs only once serve has handled that, before serve says it stopped.
LATE_WATCHER = """
import sys, threading
import warehouse.commands.irw as irw
import warehouse.interrupt as interrupt
watcher_done = threading.Event()
stop_everything = interrupt._stop_everything
def late_stop_everything():
    handled = getattr(interrupt, "_ended_by_the_command", None)
    after_the_handler = interrupt.requested.is_set()  # not uvicorn's first catch of the signal
    while interrupt.requested.is_set() and not (handled and handled.is_set()):
        threading.Event().wait(0.001)
    stop_everything()
    if after_the_handler:
        watcher_done.set()
interrupt._stop_everything = late_stop_everything
say = irw.err
def err(line):
    if line.startswith("stopped serving"):
        watcher_done.wait(10)
    say(line)
irw.err = err
from warehouse.__main__ import main
sys.argv[0] = "irw"
main()
"""


def test_ctrl_c_stops_serve_without_an_error_when_the_watcher_thread_runs_late(stored):
    """CI saw serve say "stopped serving" and then "Error: interrupted", exit 130: serve cleared the
    Ctrl-C flag, and the watcher thread, handling the same signal later, set it again."""
    status, err = _serve_then_ctrl_c(stored, ["-c", LATE_WATCHER])
    assert status == 0, err
    assert err.splitlines()[-1] == f"stopped serving {stored}", err


def test_a_run_removed_by_another_writer_during_an_evaluation_is_said_so(tmp_path, monkeypatch):
    """A walk of a team on PostgreSQL: a teammate's `irw rm run` (or `irw copy --replace`) during
    an `irw eval` failed it with "AP of run X: no value with these settings; no query was
    evaluated", which sent the user looking at the settings. Made certain here: the run goes
    after its scores are computed and before they are read."""
    from warehouse.evaluation.evaluator import Evaluator
    from warehouse.store import catalog

    db = tmp_path / "w.duckdb"
    with warehouse.open(db) as wh:
        wh.ingest_qrels(write_file(tmp_path, "q.txt", qrels_text()), "q")
        wh.ingest_run(write_file(tmp_path, "a.run", run_text(RUN_ROWS, tag="a")))
        wh.ingest_run(write_file(tmp_path, "b.run", run_text(RUN_ROWS, tag="b")))
        read = Evaluator._read

        def read_after_a_teammate_removed_b(self, *args, **kwargs):
            catalog.delete_run(self.db, catalog.run_id(self.db, "b"))
            return read(self, *args, **kwargs)

        monkeypatch.setattr(Evaluator, "_read", read_after_a_teammate_removed_b)
        with pytest.raises(warehouse.ConflictError, match=r"^run b was removed, replaced or renamed by another "
                                                          r"writer while this evaluation ran: run the command again$"):
            wh.evaluate(["a", "b"], "q", ["AP"])


def test_a_reader_is_told_a_run_is_not_judged_not_to_compute_what_no_one_can(tmp_path):
    """Read-only (a reader role, a served page), a run the qrels set judges no query of was
    "never computed ... run irw eval first", a command that then fails for a writer too."""
    from warehouse.errors import MeasureValueError, ReadOnlyError

    db = tmp_path / "w.duckdb"
    with warehouse.open(db) as wh:
        wh.ingest_qrels(write_file(tmp_path, "q.txt", qrels_text()), "q")
        wh.ingest_run(write_file(tmp_path, "a.run", run_text(RUN_ROWS, tag="a")))
        wh.ingest_run(write_file(tmp_path, "other.run", "zz1 Q0 d1 1 1.0 other\n"))
    with warehouse.open(db, read_only=True) as wh:
        with pytest.raises(MeasureValueError, match=r"^run other has no query judged in qrels q: no measure has a "
                                                    r"value; check that run and qrels are of the same collection$"):
            wh.evaluate(["other"], "q", ["AP"])
        with pytest.raises(ReadOnlyError, match=r"^AP of run a: never computed with these settings \(.*\)\nThe "
                                                r"warehouse is open read-only \(read_only=True\): store them as a "
                                                r"user or role that may write it, .*\.evaluate\(None, 'q', "
                                                r"\['AP'\]\)$"):
            wh.evaluate(["a"], "q", ["AP"])


@pytest.mark.postgres
def test_a_server_gone_under_a_command_is_said_so_with_what_to_do(postgres_url, tmp_path):
    """A walk of a team on PostgreSQL stopped the server under `irw eval`: nothing was half stored,
    but the message was only "PostgreSQL failed on the warehouse ...: terminating connection due to
    administrator command"."""
    import psycopg

    with warehouse.open(postgres_url) as wh:
        wh.ingest_qrels(write_file(tmp_path, "q.txt", qrels_text()), "q")
        pid = wh.db.con.info.backend_pid
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute("select pg_terminate_backend(%s)", [pid])
        with pytest.raises(warehouse.DatabaseError) as lost:
            wh.ingest_run(write_file(tmp_path, "a.run", run_text(RUN_ROWS, tag="a")))
    said = str(lost.value)
    assert said.startswith("the connection to the warehouse ") and " was lost: " in said, said
    assert said.endswith("the step under way was rolled back (what the command had finished is kept): run it again "
                         "once the server is back"), said
