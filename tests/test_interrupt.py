"""Issue 24: Ctrl-C ends any command within a second, exit 130, nothing half-written.

A DuckDB query kept the command in C through SIGINT (Python raises KeyboardInterrupt only when the
main thread runs Python again), and Click turned what did arrive into "Aborted!" and exit 1. The
irw command now interrupts its DuckDB connections from a watcher thread woken by the signal itself
(warehouse/interrupt.py) and exits 130. Each command here is a real subprocess sent SIGINT while
it works; after it, the warehouse holds what it held before, and no file or folder is left.
"""
from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import warehouse

ROOT = Path(__file__).resolve().parents[1]
QUERIES, DEPTH = 1000, 1000  # a million lines: each command below works for seconds


def _write_data(folder: Path) -> tuple[Path, Path]:
    run, qrels = folder / "big.run.gz", folder / "big.qrels"
    with gzip.open(run, "wt", compresslevel=1) as out:
        for q in range(QUERIES):
            for i in range(DEPTH):
                out.write(f"q{q} Q0 d{q}-{i} {i + 1} {DEPTH - i} big\n")
    with qrels.open("w") as out:
        for q in range(QUERIES):
            for i in range(0, DEPTH, 7):
                out.write(f"q{q} 0 d{q}-{i} {i % 3}\n")
    return run, qrels


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("interrupt")
    run, qrels = _write_data(folder)
    stored = folder / "stored.duckdb"
    with warehouse.open(stored) as wh:
        wh.ingest_qrels(qrels, "big")
        wh.ingest_run(run)
    return run, qrels, stored


def _interrupt(args: list[str], after, cwd: Path, env: dict | None = None) -> tuple[int, float, str]:
    """Runs `irw *args`, sends SIGINT `after` seconds in (or, after a callable, once it returns true:
    the command has reached a step); (exit status, seconds from the signal to the exit, stderr).
    Fails if irw ended before the signal."""
    proc = subprocess.Popen([sys.executable, "-m", "warehouse", *map(str, args)], cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    if callable(after):
        deadline = time.monotonic() + 60
        while proc.poll() is None and not after() and time.monotonic() < deadline:
            time.sleep(0.002)
    else:
        time.sleep(after)
    assert proc.poll() is None, f"irw {' '.join(map(str, args))} ended before the signal: {proc.stderr.read()}"
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, time.monotonic() - sent, stderr


def _working(db: Path, then: float = 0.3):
    """A condition for _interrupt: true `then` seconds after irw opened the warehouse db (its spill
    folder, db.tmp/irw-*, appears at the open), so the signal meets the command at work however
    long the interpreter took to start."""
    seen: list[float] = []

    def ready() -> bool:
        if not seen and any(Path(str(db) + ".tmp").glob("irw-*")):
            seen.append(time.monotonic())
        return bool(seen) and time.monotonic() - seen[0] >= then

    return ready


def _check(status: int, took: float, stderr: str) -> None:
    assert status == 130, stderr
    assert stderr == ("Error: interrupted (Ctrl-C): the steps that finished are kept, the one under way was rolled "
                      "back; run the command again to finish (what is stored is not stored again)\n")
    # the promise is a second; measured 0.04-0.7 s here, and up to 1.3 s while a benchmark loaded
    # both cores: the margin is for a CI machine running tests in parallel
    assert took < 1.5, f"{took:.2f} s from SIGINT to exit"


def _left(folder: Path) -> list[str]:
    """What is in folder, the warehouse's write-ahead log aside (a commit the interrupt met as it
    was checkpointed at close is replayed by the next open: part of the warehouse, not a leftover)."""
    return sorted(p.name for p in folder.iterdir() if not p.name.endswith(".duckdb.wal"))


def _copy(stored: Path, folder: Path) -> Path:
    db = folder / "irw.duckdb"
    db.write_bytes(stored.read_bytes())
    return db


def _state(db: Path) -> tuple:
    with warehouse.open(db, read_only=True) as wh:
        return (wh.run_names(), wh.db.fetchone("select count(*) from run_rows")[0],
                wh.db.fetchone("select count(*) from scores")[0])


def test_ingest(data, tmp_path):
    run, qrels, _ = data
    db = tmp_path / "irw.duckdb"
    with warehouse.open(db) as wh:
        wh.ingest_qrels(qrels, "big")
    _check(*_interrupt(["ingest", "run", run, "--db", db], _working(db), tmp_path))
    assert _state(db) == ([], 0, 0)
    assert _left(tmp_path) == ["irw.duckdb"]


def test_eval(data, tmp_path):
    db = _copy(data[2], tmp_path)
    before = _state(db)
    _check(*_interrupt(["eval", "-m", "all_trec", "--db", db], _working(db), tmp_path))
    assert _state(db) == before
    assert _left(tmp_path) == ["irw.duckdb"]


def test_report(data, tmp_path):
    db = _copy(data[2], tmp_path)
    before = _state(db)
    _check(*_interrupt(["report", "leaderboard", "-m", "all_trec", "-o", tmp_path / "board.html", "--db", db],
                       _working(db, 1.0), tmp_path))
    after = _state(db)
    if after != before:  # the evaluation got as far as its commit: stored whole, with its record
        assert after[:2] == before[:2]
        with warehouse.open(db, read_only=True) as wh:
            assert wh.db.fetchone("select count(*) from evaluated")[0] > 0
            assert wh.db.fetchone("select count(distinct query_id) from scores where query_id <> 'all'")[0] \
                == QUERIES
    assert _left(tmp_path) == ["irw.duckdb"]


def test_copy_and_export(data, tmp_path):
    db = _copy(data[2], tmp_path)
    temp = tmp_path / "tmp"
    temp.mkdir()
    copying = lambda: any(temp.glob("irw-transfer-*/*"))  # noqa: E731 (rows on their way)
    _check(*_interrupt(["copy", "--from", db, "--to", tmp_path / "copy.duckdb"], copying, tmp_path,
                       env={"TMPDIR": str(temp)}))
    if (tmp_path / "copy.duckdb").exists():
        assert _state(tmp_path / "copy.duckdb")[:2] in (([], 0), (["big"], QUERIES * DEPTH))
        (tmp_path / "copy.duckdb").unlink()
    assert list(temp.iterdir()) == []
    exporting = lambda: any(tmp_path.glob(".out.irw-export-*/*"))  # noqa: E731 (files being written)
    _check(*_interrupt(["export", tmp_path / "out", "--db", db], exporting, tmp_path))
    assert _left(tmp_path) == ["irw.duckdb", "tmp"]


def test_ingest_into_postgresql(data, tmp_path, postgres_url):
    """On a PostgreSQL warehouse the statement under way is cancelled on the server: no run is
    stored, and the server runs nothing of irw's after the exit."""
    import psycopg

    run, qrels, _ = data
    with warehouse.open(postgres_url) as wh:
        wh.ingest_qrels(qrels, "big")
    _check(*_interrupt(["ingest", "run", run, "--db", postgres_url], 2.0, tmp_path))
    with warehouse.open(postgres_url, read_only=True) as wh:
        assert wh.run_names() == [] and wh.db.fetchone("select count(*) from run_rows")[0] == 0
    with psycopg.connect(postgres_url, autocommit=True) as con:
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            others = con.execute("select count(*) from pg_stat_activity where datname = current_database() "
                                 "and pid <> pg_backend_pid()").fetchone()[0]
            if not others:
                break
            time.sleep(0.05)
        assert others == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize("suffix", [".bz2", ".xz"])
def test_ingest_of_a_file_python_decompresses(data, tmp_path, suffix):
    """A .bz2 or .xz file reaches DuckDB through a FIFO a thread writes as it decompresses
    (warehouse/ingestion/files.py _Feed): Ctrl-C while DuckDB reads one ends the command as any other, and
    leaves no FIFO, folder or file in $TMPDIR."""
    import bz2
    import lzma

    run = tmp_path / f"big.run{suffix}"
    with gzip.open(data[0], "rb") as text:
        run.write_bytes(bz2.compress(text.read(), 1) if suffix == ".bz2" else lzma.compress(text.read(), preset=1))
    temp = tmp_path / "tmp"
    temp.mkdir()
    db = tmp_path / "irw.duckdb"
    with warehouse.open(db) as wh:
        wh.ingest_qrels(data[1], "big")
    streaming = lambda: any(temp.glob("irw-text-*/text-*"))  # noqa: E731 (a FIFO DuckDB reads)
    _check(*_interrupt(["ingest", "run", run, "--db", db], streaming, tmp_path, env={"TMPDIR": str(temp)}))
    assert _state(db) == ([], 0, 0)
    assert list(temp.iterdir()) == []
    assert _left(tmp_path) == sorted(["irw.duckdb", run.name, "tmp"])
