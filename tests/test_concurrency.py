"""Concurrent use of one warehouse file by several irw processes.

DuckDB lets one process write a file and no other open it meanwhile; any number of processes may
read it together. A command that finds the file taken waits for it (IRW_BUSY_WAIT seconds, 10 by
default), then fails with an `Error:` line naming the warehouse and "another process", exit code 1,
no traceback, and changes nothing; run again once the other has finished, it succeeds. The
refusals here are asked for at once (IRW_BUSY_WAIT=0: the holder is stopped, no wait would end);
the last test waits for a holder that finishes.

Who holds the file is arranged, not raced for: a process is stepped (conftest.SteppedIrw) until
/proc/locks shows it holding its lock, and left stopped there while the others run. One test also
starts four writers at once and checks only what must hold whatever the order.
"""
from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import warehouse
from conftest import Cli, SteppedIrw, fingerprint_at, stepping_supported

pytestmark = pytest.mark.skipif(not stepping_supported(), reason="needs Linux /proc and SIGSTOP")

QUERIES, DEPTH = 50, 200  # 10,000 lines a run


def write_run(path: Path, tag: str, seed: int) -> Path:
    rng = random.Random(seed)
    with path.open("w") as out:
        for q in range(QUERIES):
            for rank, doc in enumerate(rng.sample(range(5_000), DEPTH), start=1):
                out.write(f"q{q} Q0 d{doc} {rank} {DEPTH - rank + rng.random():.4f} {tag}\n")
    return path


AT_ONCE = {**os.environ, "IRW_BUSY_WAIT": "0"}  # a command refused at once, not after the wait


def irw(db: Path, *args, env: dict | None = AT_ONCE) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "warehouse", *map(str, args), "--db", str(db)],
                          capture_output=True, text=True, timeout=120, env=env)


def in_process(db: Path, *args) -> None:
    """A command that meets no other process, run in this one (quicker than a new interpreter)."""
    result = Cli(db)(*args)
    assert result.exit_code == 0, result.stderr


def start(db: Path, *args, env: dict | None = AT_ONCE) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "warehouse", *map(str, args), "--db", str(db)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def assert_lock_error(code: int, stderr: str, db: Path) -> None:
    """The refusal a process gets while another holds the file: one clear line, exit 1."""
    assert code == 1, stderr
    assert "Traceback" not in stderr
    errors = [line for line in stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, stderr
    assert str(db) in errors[0] and "another process" in errors[0], errors[0]


def stored_runs(db: Path) -> dict[str, tuple[int, int]]:
    """{run: (row_count recorded in runs, rows actually in run_rows)}."""
    with warehouse.open(db, read_only=True) as wh:
        return {name: (recorded, stored) for name, recorded, stored in wh.sql(
            "select r.name, r.row_count, (select count(*) from run_rows x where x.run_id = r.run_id) "
            "from runs r order by r.name").rows}


@pytest.fixture
def setup(tmp_path):
    """A warehouse holding qrels set q, and four run files tagged w0..w3 not yet ingested."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d * 7} {d % 3}\n" for q in range(QUERIES) for d in range(40)))
    db = (tmp_path / "irw.duckdb").resolve()
    in_process(db, "ingest", "qrels", qrels, "--name", "q")
    runs = [write_run(tmp_path / f"w{i}.run", f"w{i}", seed=i) for i in range(4)]
    return db, runs


@pytest.mark.parametrize("writers", [2, 4])
def test_while_one_writer_holds_the_warehouse_the_others_are_refused_and_succeed_after(setup, writers):
    db, runs = setup
    before = fingerprint_at(db)
    holder = SteppedIrw(db, "ingest", "run", runs[0])
    try:
        # stopped mid-ingest: holding the lock, its run file read or being read
        assert holder.step_until(lambda v, views: v.lock == "WRITE" and any(w.has_open(runs[0]) for w in [*views, v]))
        others = [start(db, "ingest", "run", path) for path in runs[1:writers]]
        for proc in others:
            _out, err = proc.communicate(timeout=120)
            assert_lock_error(proc.returncode, err, db)
        code, _out, err = holder.finish()
        assert code == 0, err
    finally:
        holder.close()
    assert stored_runs(db) == {"w0": (QUERIES * DEPTH,) * 2}
    assert fingerprint_at(db) != before
    for path in runs[1:writers]:  # the refused commands, run again
        in_process(db, "ingest", "run", path)
    assert stored_runs(db) == {f"w{i}": (QUERIES * DEPTH,) * 2 for i in range(writers)}


def test_writers_started_together_each_win_or_are_refused_and_only_the_winners_are_stored(setup):
    """Four writers at once, in whatever order the machine gives: each stores its whole run or gets
    the lock error and stores nothing; at least one wins."""
    db, runs = setup
    procs = [start(db, "ingest", "run", path) for path in runs]
    winners = set()
    for i, proc in enumerate(procs):
        _out, err = proc.communicate(timeout=120)
        if proc.returncode == 0:
            winners.add(f"w{i}")
        else:
            assert_lock_error(proc.returncode, err, db)
    assert winners
    assert stored_runs(db) == {name: (QUERIES * DEPTH,) * 2 for name in sorted(winners)}


def test_a_reader_blocks_writers_but_not_other_readers(setup):
    db, runs = setup
    in_process(db, "ingest", "run", runs[0])
    before = fingerprint_at(db)
    reader = SteppedIrw(db, "runs", "--format", "csv")
    try:
        assert reader.step_until(lambda v, _: v.lock == "READ")
        other_reader = irw(db, "qrels", "--format", "csv")
        assert other_reader.returncode == 0, other_reader.stderr
        assert other_reader.stdout.splitlines()[1].startswith("q,")
        writer = irw(db, "ingest", "run", runs[1])
        assert_lock_error(writer.returncode, writer.stderr, db)
        code, out, err = reader.finish()
        assert code == 0, err
        assert [line.split(",")[0] for line in out.splitlines()[1:]] == ["w0"]
    finally:
        reader.close()
    assert fingerprint_at(db) == before  # the refused writer changed nothing
    in_process(db, "ingest", "run", runs[1])
    assert stored_runs(db) == {"w0": (QUERIES * DEPTH,) * 2, "w1": (QUERIES * DEPTH,) * 2}


def test_readers_are_refused_while_a_writer_ingests_and_then_see_the_whole_run(setup):
    db, runs = setup
    writer = SteppedIrw(db, "ingest", "run", runs[0])
    try:
        assert writer.step_until(lambda v, views: v.lock == "WRITE" and any(w.has_open(runs[0]) for w in [*views, v]))
        for args in (("runs",), ("qrels",), ("runs", "--format", "json")):
            reader = irw(db, *args)
            assert_lock_error(reader.returncode, reader.stderr, db)
            assert reader.stdout == ""
        code, _out, err = writer.finish()
        assert code == 0, err
    finally:
        writer.close()
    listed = irw(db, "runs", "--format", "csv")
    assert listed.returncode == 0, listed.stderr
    header, *rows = listed.stdout.splitlines()
    columns = header.split(",")
    assert [dict(zip(columns, row.split(",")))["rows"] for row in rows] == [str(QUERIES * DEPTH)]


@pytest.mark.parametrize("closed", [False, True], ids=["second-open", "second-closed"])
@pytest.mark.parametrize("mode", ["sandboxed", "read_only"])
def test_a_second_open_in_this_process_keeps_the_first_one_s_lock(setup, mode, closed):
    """DuckDB's lock on its file is a POSIX record lock, which belongs to the process and goes
    with the close of any descriptor of the file in it: opening the same warehouse again in this
    process (irw serve answers requests at once, a Python user may hold two) must not close one
    while the first is open, or another process could write under the first one's reads."""
    db, runs = setup
    first = warehouse.open(db, **{mode: True})
    try:
        other = warehouse.open(db, **{mode: True})
        if closed:
            other.close()
        writer = irw(db, "ingest", "run", runs[1])
        assert_lock_error(writer.returncode, writer.stderr, db)
        if not closed:
            other.close()
        writer = irw(db, "ingest", "run", runs[1])
        assert_lock_error(writer.returncode, writer.stderr, db)
    finally:
        first.close()
    assert "w1" not in stored_runs(db)


def test_refusing_an_output_path_that_is_a_database_keeps_its_lock(setup):
    """irw looks at an output path's head to refuse writing over a database; a DuckDB file this
    process holds open (here a Python user's own connection) keeps its lock after the look."""
    import duckdb

    from warehouse.errors import OutputError
    from warehouse.formats.files import check_output

    db, runs = setup
    con = duckdb.connect(str(db), read_only=True)
    try:
        with pytest.raises(OutputError, match="a DuckDB database"):
            check_output(db)
        writer = irw(db, "ingest", "run", runs[1])
        assert_lock_error(writer.returncode, writer.stderr, db)
    finally:
        con.close()


def test_a_writer_waits_for_the_writer_holding_the_file_and_then_stores_its_run(setup):
    """A nightly ingest meeting another writer (a page of `irw serve` storing scores, another
    ingest) waits for it instead of failing, says so once, and stores its run when the file is free."""
    db, runs = setup
    holder = SteppedIrw(db, "ingest", "run", runs[0])
    try:
        assert holder.step_until(lambda v, views: v.lock == "WRITE" and any(w.has_open(runs[0]) for w in [*views, v]))
        waiting = start(db, "ingest", "run", runs[1], env=None)  # the default wait
        line = waiting.stderr.readline()
        assert line.startswith("waiting for another process (") and "up to 10 s; IRW_BUSY_WAIT sets how long" in line
        code, _out, err = holder.finish()
        assert code == 0, err
        _out, err = waiting.communicate(timeout=120)
        assert waiting.returncode == 0, err
    finally:
        holder.close()
    assert stored_runs(db) == {"w0": (QUERIES * DEPTH,) * 2, "w1": (QUERIES * DEPTH,) * 2}
