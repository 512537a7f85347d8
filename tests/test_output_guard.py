"""Issue 24: an output path is never a warehouse or any database file.

`irw sql --db W "select 1" -f csv -o W` and `irw report leaderboard --db W -o W` wrote a CSV or an
HTML page over the warehouse. Every command that writes a file goes through warehouse/formats/files.py's
check_output: the open warehouse (its file, WAL, spill folder) and any existing DuckDB or SQLite
file are refused, naming the path, before anything is written.
"""
from __future__ import annotations

import sqlite3

import pytest

import warehouse
from warehouse.errors import OutputError
from warehouse.formats.files import write_atomically

from conftest import Cli


def _unchanged(path, before: bytes | None) -> None:
    """Still the warehouse (byte for byte, unless the command stored scores in it)."""
    assert before is None or path.read_bytes() == before
    assert path.read_bytes()[8:12] == b"DUCK"
    with warehouse.open(path, read_only=True) as wh:
        assert wh.run_names() == ["tagA"]


def test_sql_output_over_the_warehouse_is_refused(seeded_db, tmp_path):
    irw = Cli(seeded_db)
    before = seeded_db.read_bytes()
    for fmt in ("csv", "json", "table", "parquet"):
        result = irw("sql", "select 1", "-f", fmt, "-o", seeded_db)
        assert result.exit_code == 1, (fmt, result.stderr)
        assert result.stderr == (f"Error: cannot write {seeded_db}: it is the warehouse this command has open "
                                 f"({seeded_db}); irw never writes over a warehouse: choose another -o path\n")
        _unchanged(seeded_db, before)
    other = tmp_path / "notes.sqlite"
    with sqlite3.connect(other) as con:
        con.execute("create table t (x)")
    sqlite_bytes = other.read_bytes()
    result = irw("sql", "select 1", "-f", "csv", "-o", other)
    assert result.exit_code == 1 and "it is a SQLite database file, which irw never writes over" in result.stderr
    assert other.read_bytes() == sqlite_bytes
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    fine = irw("sql", "select 1 as x", "-f", "csv", "-o", tmp_path / "x.csv")
    assert fine.exit_code == 0 and (tmp_path / "x.csv").read_text() == "x\n1\n"


def test_report_output_over_the_warehouse_is_refused(seeded_db, tmp_path):
    irw = Cli(seeded_db)
    before = seeded_db.read_bytes()
    for command in (["report", "leaderboard"], ["report", "run", "tagA"], ["report", "history"]):
        result = irw(*command, "-o", seeded_db)
        assert result.exit_code == 1, (command, result.stderr)
        assert result.stderr.startswith(f"Error: cannot write {seeded_db}: it is the warehouse this command has open")
        _unchanged(seeded_db, None)  # a report stores the scores it computes
    # a run page whose file is a database: refused before any page or the leaderboard is written
    pages = tmp_path / "board_runs"
    pages.mkdir()
    (pages / "tagA.html").write_bytes(before)
    result = irw("report", "leaderboard", "-o", tmp_path / "board.html")
    assert result.exit_code == 1 and f"cannot write {pages / 'tagA.html'}: it is a DuckDB database" in result.stderr
    assert not (tmp_path / "board.html").exists() and sorted(p.name for p in pages.iterdir()) == ["tagA.html"]
    assert (pages / "tagA.html").read_bytes() == before


def test_the_open_warehouse_and_its_files_are_refused_by_the_library(seeded_db, tmp_path):
    with warehouse.open(seeded_db) as wh:
        for path in (seeded_db, seeded_db.with_name(seeded_db.name + ".wal"),
                     seeded_db.with_name(seeded_db.name + ".tmp") / "x.csv"):
            with pytest.raises(OutputError, match="the warehouse this command has open"):
                write_atomically(path, b"x")
            assert not path.exists() or path == seeded_db
        assert wh.run_names() == ["tagA"]
    write_atomically(tmp_path / "after.txt", b"x")  # closed: no longer protected, other paths fine


def test_demo_sample_files_never_overwrite_a_database(seeded_db, tmp_path):
    data = tmp_path / "demo" / "data"
    data.mkdir(parents=True)
    (data / "qrels.txt").write_bytes(seeded_db.read_bytes())
    result = Cli(seeded_db)("demo", tmp_path / "demo", db=False)
    assert result.exit_code == 1
    assert result.stderr == (f"Error: cannot write {data / 'qrels.txt'}: it is a DuckDB database file, which irw "
                             "never writes over; choose another folder\n")
    assert (data / "qrels.txt").read_bytes() == seeded_db.read_bytes() and sorted(data.iterdir()) == [data / "qrels.txt"]


def _irw_process(db, *args, stdout=None, cwd=None):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "warehouse", *map(str, args), "--db", str(db)], cwd=cwd,
                          stdout=stdout if stdout is not None else subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=120)


def test_a_link_stays_and_the_file_it_names_is_written(seeded_db, tmp_path):
    """`-o link.csv` (a symbolic link) wrote a plain file in the link's place and left its target
    as it was; the link stays, and its target gets the output, for tables and pages alike."""
    irw = Cli(seeded_db)
    (tmp_path / "target.csv").write_text("original\n")
    (tmp_path / "link.csv").symlink_to("target.csv")
    result = irw("sql", "select 1 as a", "-f", "csv", "-o", tmp_path / "link.csv")
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "link.csv").is_symlink()
    assert (tmp_path / "target.csv").read_text() == "a\n1\n"
    (tmp_path / "board.html").write_text("old page")
    (tmp_path / "link.html").symlink_to(tmp_path / "board.html")
    result = irw("report", "leaderboard", "-m", "AP", "-o", tmp_path / "link.html")
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "link.html").is_symlink() and "<html" in (tmp_path / "board.html").read_text()


def test_a_fifo_and_dev_stdout_are_written_into_not_replaced(seeded_db, tmp_path):
    """A FIFO became a plain file and its reader got nothing; `-o /dev/stdout` replaced the
    machine's /dev/stdout link with a file. Both are written into, as a shell's `>` does."""
    import os
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    result = _irw_process(seeded_db, "sql", "select 1 as a", "-f", "csv", "-o", fifo)
    reader.join(timeout=60)
    assert result.returncode == 0, result.stderr
    assert got == ["a\n1\n"] and fifo.is_fifo()

    # a link to the process's stdout, as /dev/stdout is (not the machine's own: a regression here
    # would replace it for every process)
    (tmp_path / "my-stdout").symlink_to("/proc/self/fd/1")
    with open(tmp_path / "out.csv", "w") as out:
        result = _irw_process(seeded_db, "sql", "select 2 as b", "-f", "csv", "-o", tmp_path / "my-stdout",
                              stdout=out)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "my-stdout").is_symlink()
    assert (tmp_path / "out.csv").read_text() == "b\n2\n"
