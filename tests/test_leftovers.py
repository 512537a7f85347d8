"""Issue 24: what a killed command leaves is removed by the next one, and only that.

A killed `irw copy` left $TMPDIR/irw-transfer-*, a killed ingest of a big gzip left DuckDB's spill
files in W.tmp. Folders irw makes for one command are now named with their process id and held
with a lock (warehouse/leftovers.py); the next command that uses the same place removes those
whose process is gone, never a live one's.
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

from conftest import Cli, qrels_text

ROOT = Path(__file__).resolve().parents[1]


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _irw(*args, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "warehouse", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=300)


@pytest.fixture
def sleeper():
    """A live process that is not this one: a folder named with its pid belongs to someone alive."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    yield proc.pid
    proc.kill()
    proc.wait()


def test_a_killed_copy_leaves_nothing_the_next_copy_keeps(seeded_db, tmp_path, sleeper):
    temp = tmp_path / "tmp"
    temp.mkdir()
    dead = temp / f"irw-transfer-{_dead_pid()}-0badf00d"
    legacy = temp / "irw-transfer-k2j4_x9a"  # tempfile.mkdtemp's name, made by an irw before this fix
    live = temp / f"irw-transfer-{sleeper}-feedf00d"
    mine = temp / "irw-transfer-notes"  # not a name irw makes
    recent = temp / "irw-transfer-abcd_123"  # no pid, and written a moment ago: maybe a live old irw's
    spill = temp / f"irw-spill-{_dead_pid()}-0badf00d"  # an in-memory database's spill (trec-eval, staging)
    for folder in (dead, legacy, live, mine, recent, spill):
        folder.mkdir()
        (folder / "runs.csv").write_text("1,2,3\n")
    os.utime(legacy, (time.time() - 7200, time.time() - 7200))
    result = _irw("copy", "--from", seeded_db, "--to", tmp_path / "copy.duckdb", env={"TMPDIR": str(temp)})
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in temp.iterdir()) == sorted([live.name, mine.name, recent.name])
    assert (live / "runs.csv").exists() and (mine / "runs.csv").exists()


def test_spill_files_of_a_killed_command_are_removed_by_the_next(seeded_db, sleeper):
    spills = Path(str(seeded_db) + ".tmp")
    spills.mkdir()
    dead = spills / f"irw-{_dead_pid()}-0badf00d"
    live = spills / f"irw-{sleeper}-feedf00d"
    for folder in (dead, live):
        folder.mkdir()
        (folder / "duckdb_temp_storage_S32K-0.tmp").write_bytes(b"\0" * 4096)
    old_style = spills / "duckdb_temp_4242_0_storage_S32K-0.tmp"  # an irw before this fix spilled into W.tmp itself
    old_style.write_bytes(b"\0" * 4096)
    other = spills / "notes.txt"
    other.write_text("mine")
    result = _irw("runs", "--db", seeded_db)  # read-only: removes a gone process's folder only
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in spills.iterdir()) == sorted([live.name, old_style.name, other.name])
    result = _irw("rm", "run", "tagA", "--db", seeded_db)  # holds the file for writing: DuckDB's own too
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in spills.iterdir()) == sorted([live.name, other.name])


def _killed_once_spilling(args: list[str], db: Path, memory_limit: str) -> int:
    """Runs `irw ARGS --db DB` under IRW_MEMORY_LIMIT, made to spill, and kills it (SIGKILL) once its
    spill folder in DB.tmp holds a file; returns its pid."""
    proc = subprocess.Popen([sys.executable, "-m", "warehouse", *map(str, args), "--db", str(db)], cwd=ROOT,
                            env={**os.environ, "IRW_MEMORY_LIMIT": memory_limit},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    spills = Path(str(db) + ".tmp")
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if any(p.is_file() for p in spills.glob("irw-*/*")):
                break
            time.sleep(0.02)
        assert proc.poll() is None, f"irw {args[0]} ended before it spilled"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert any(p.is_file() for p in spills.glob("irw-*/*"))
    return proc.pid


def test_a_killed_ingest_spilling_to_disk_leaves_nothing(db_path, tmp_path):
    """A real kill: an ingest made to spill (a small IRW_MEMORY_LIMIT) is killed once its spill
    folder holds files; the next command removes them."""
    Cli(db_path)("ingest", "qrels", _write(tmp_path / "q.txt", qrels_text()))
    run = tmp_path / "big.run.gz"
    with gzip.open(run, "wt", compresslevel=1) as out:
        for q in range(400):
            for i in range(1000):
                out.write(f"q{q} Q0 document{q}-{i} {i + 1} {1000 - i} tag\n")
    # 40MB: small enough to spill, large enough for DuckDB's text buffer (about 32 MB) that reads
    # a compressed file's head (at 20MB the ingest is refused for memory: test_a_memory_limit_...)
    _killed_once_spilling(["ingest", "run", run], db_path, "40MB")
    spills = Path(str(db_path) + ".tmp")
    with warehouse.open(db_path, read_only=True) as wh:
        assert wh.run_names() == []
    assert not spills.exists() or not list(spills.iterdir())


def test_a_killed_irw_sql_spilling_to_disk_leaves_nothing_a_reading_command_keeps(seeded_db):
    """A security walk: an `irw sql` killed mid-spill left 693 MB of DuckDB's files in W.tmp itself,
    which no reading command removed. The sandbox spills into a folder of its process's, which the
    next command removes once that process is gone, a reading one too."""
    query = "select count(*) from (select range x, md5(range::varchar) r from range(20000000) order by r)"
    pid = _killed_once_spilling(["sql", "--timeout", "120", query], seeded_db, "60MB")
    spills = Path(str(seeded_db) + ".tmp")
    assert [p.name.rsplit("-", 1)[0] for p in spills.iterdir()] == [f"irw-{pid}"]  # its own folder, nothing else
    result = _irw("runs", "--db", seeded_db)
    assert result.returncode == 0, result.stderr
    assert not spills.exists() or not list(spills.iterdir())
    result = _irw("sql", "select 1 as one", "--db", seeded_db)  # the sandbox's folder goes at exit
    assert result.returncode == 0, result.stderr
    assert not spills.exists() or not list(spills.iterdir())


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_a_memory_limit_too_small_to_read_text_says_so_and_stores_nothing(db_path, tmp_path):
    """DuckDB reads text in buffers of about 32 MB: under a smaller IRW_MEMORY_LIMIT an ingest is
    refused with what to do, not DuckDB's allocation error, and the warehouse keeps no run."""
    Cli(db_path)("ingest", "qrels", _write(tmp_path / "q.txt", qrels_text()))
    run = tmp_path / "small.run.gz"
    with gzip.open(run, "wt") as out:
        out.write("q1 Q0 d1 1 1.0 tag\n")
    proc = subprocess.run([sys.executable, "-m", "warehouse", "ingest", "run", str(run), "--db", str(db_path)],
                          cwd=ROOT, env={**os.environ, "IRW_MEMORY_LIMIT": "20MB"}, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    assert "needs more memory than irw lets DuckDB use (20MB: IRW_MEMORY_LIMIT" in proc.stderr, proc.stderr
    assert "run it again with a larger IRW_MEMORY_LIMIT" in proc.stderr and "Traceback" not in proc.stderr
    listed = Cli(db_path)("runs", "--format", "json")
    assert (listed.exit_code, listed.stdout) == (1, "[]\n"), listed.stdout  # it opens, and holds no run
