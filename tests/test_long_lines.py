"""Issue 24: a line longer than irw reads is refused naming it, never dropped.

DuckDB's CSV reader dropped a last line of 32 MiB or more and ingested the rest with exit 0 (runs,
qrels, trec-eval; plain and .gz), read a file of one such line as empty, and refused one in the
middle with "Parallel CSV Reader ... full read" and no line number. Now every line is stored, or
the file is refused at its first line longer than 2,000,000 bytes (its line end included), in
every compression irw reads.
"""
from __future__ import annotations

import bz2
import gzip
import lzma

import pytest

import warehouse

from conftest import RUN_ROWS, Cli, qrels_text, run_text as _run_text

BIG = 33 * 1024 * 1024  # past DuckDB's 32 MiB buffer, where the last line went missing
LIMIT = 2_000_000
MESSAGE = "a line longer than 2,000,000 bytes: not a TREC file"


def run_text() -> str:
    return _run_text(RUN_ROWS)


def _compress(data: bytes, suffix: str) -> bytes:
    if suffix == ".gz":
        return gzip.compress(data, compresslevel=1)
    if suffix == ".bz2":
        return bz2.compress(data, 1)
    if suffix == ".xz":
        return lzma.compress(data, preset=0)
    if suffix == ".zst":
        import zstandard

        return zstandard.ZstdCompressor(level=1).compress(data)
    return data


def _line(fields: list[str], length: int) -> bytes:
    """A line of `length` bytes (its LF included) whose first field is padded."""
    rest = " " + " ".join(fields[1:]) + "\n"
    return (fields[0] + "x" * (length - len(fields[0]) - len(rest)) + rest).encode()


def _lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2", ".xz", ".zst"])
def test_a_long_last_line_is_refused_naming_it(db_path, tmp_path, suffix):
    irw = Cli(db_path)
    head = run_text().encode()
    path = tmp_path / f"run.txt{suffix}"
    path.write_bytes(_compress(head + _line(["q1", "Q0", "d", "9", "0.5", "tagA"], BIG), suffix))
    result = irw("ingest", "run", path)
    assert result.exit_code == 1, result.stderr
    assert result.stderr == f"Error: {path}:{_lines(head.decode()) + 1}: {MESSAGE}\n"
    assert not db_path.exists()

    qrels_head = qrels_text().encode()
    qrels = tmp_path / f"q.txt{suffix}"
    qrels.write_bytes(_compress(qrels_head + _line(["q1", "0", "d", "1"], BIG), suffix))
    result = irw("ingest", "qrels", qrels)
    assert result.stderr == f"Error: {qrels}:{_lines(qrels_head.decode()) + 1}: {MESSAGE}\n"
    assert result.exit_code == 1 and not db_path.exists()


def test_one_long_line_and_one_in_the_middle(db_path, tmp_path):
    irw = Cli(db_path)
    head = run_text().encode()
    only = tmp_path / "only.txt"
    only.write_bytes(_line(["q1", "Q0", "d", "1", "0.5", "tagA"], BIG))
    assert irw("ingest", "run", only).stderr == f"Error: {only}:1: {MESSAGE}\n"
    middle = tmp_path / "middle.txt"
    middle.write_bytes(head + _line(["q1", "Q0", "d", "9", "0.5", "tagA"], LIMIT + 1) + head)
    assert irw("ingest", "run", middle).stderr == f"Error: {middle}:{_lines(head.decode()) + 1}: {MESSAGE}\n"
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(head.replace(b"\n", b"\r\n") + _line(["q1", "Q0", "d", "9", "0.5", "tagA"], LIMIT + 1))
    assert irw("ingest", "run", crlf).stderr == f"Error: {crlf}:{_lines(head.decode()) + 1}: {MESSAGE}\n"
    assert not db_path.exists()

    qrels = tmp_path / "q.txt"
    qrels.write_text(qrels_text())
    run = tmp_path / "run.txt.gz"
    run.write_bytes(_compress(head + _line(["q1", "Q0", "d", "9", "0.5", "tagA"], BIG), ".gz"))
    result = Cli(db_path)("trec-eval", qrels, run, db=False)
    assert result.exit_code == 2 and f"{run}:{_lines(head.decode()) + 1}: {MESSAGE}" in result.stderr


def test_a_line_of_the_limit_is_stored(wh, tmp_path):
    """A line of 2,000,000 bytes with its LF is read and stored whole, in every compression."""
    for suffix in ("", ".gz", ".xz"):
        long = _line(["q9", "0", "d", "1"], LIMIT)
        path = tmp_path / f"q{suffix or '.txt'}"
        path.write_bytes(_compress(qrels_text().encode() + long, suffix))
        result = wh.ingest_qrels(path, f"set{suffix}")
        assert result.rows == _lines(qrels_text()) + 1
        assert wh.db.fetchone("select max(length(query_id)) from qrels join qrels_sets using (qrels_set_id) "
                              "where name = ?", [f"set{suffix}"])[0] == LIMIT - len(" 0 d 1\n")
    assert isinstance(warehouse.__version__, str)
