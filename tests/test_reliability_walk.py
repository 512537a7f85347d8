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


def test_ctrl_c_stops_serve_without_an_error(stored):
    """Ctrl-C is how `irw serve` is stopped (it says so when it starts): exit 0 and a line saying it
    stopped, not 130 and "interrupted ... rolled back"."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "warehouse", "serve", "--db", str(stored), "--port", str(port)],
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
    assert proc.returncode == 0, err
    assert err.splitlines()[-1] == f"stopped serving {stored}", err
    assert "interrupted" not in err


def test_a_spill_limit_met_says_irw_temp_limit_not_memory(conformance, tmp_path):
    """DuckDB says "Out of Memory Error" when IRW_TEMP_LIMIT's disk is full too: the message named
    IRW_MEMORY_LIMIT, and a larger one did not help."""
    rows = (conformance / "dl19-passage" / "runs" / "run.dl19.BM25.txt").read_text().splitlines()
    lines = [f"{q}x{i} Q0 {d}y{i} {rank} {score} {tag}\n" for i in range(60)
             for q, _, d, rank, score, tag in (row.split() for row in rows)]
    big = write_file(tmp_path, "big.txt", "".join(lines))
    db = tmp_path / "w.duckdb"
    result = Cli(db)("ingest", "run", str(big), env={"IRW_MEMORY_LIMIT": "60MB", "IRW_TEMP_LIMIT": "1MB"})
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == (
        f"Error: {big}: reading it needs more disk to spill to than IRW_TEMP_LIMIT lets DuckDB use (1MB); nothing "
        "was stored: run it again with a larger IRW_TEMP_LIMIT, or without it"), result.stderr


def test_a_new_warehouse_a_ctrl_c_left_in_an_aborted_transaction_is_removed(tmp_path):
    """Ctrl-C 3 s into a first ingest of a 3M-line run left a new, empty warehouse (and its folder):
    the cut transaction was left aborted, so the check that the file holds no data failed, and the
    file was kept. The quickstart promises an ingest that stores nothing leaves no new file."""
    import duckdb

    path = tmp_path / "new" / "w.duckdb"
    wh = warehouse.open(path)
    wh.db.con.execute("begin")
    with pytest.raises(duckdb.Error):
        wh.db.con.execute("select cast('x' as integer)")  # as an interrupted statement leaves it: aborted
    wh.db.discard()
    assert not path.exists() and not (tmp_path / "new").exists()
