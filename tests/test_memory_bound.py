"""Issue 24: no input makes irw's memory grow without bound.

A 1.3 MB gzip of 300 MB of `x y z` lines peaked at 17.5 GB before its error (every problem row
fetched into Python, DuckDB free to take 80% of the machine). Now DuckDB works within its
memory_limit (IRW_MEMORY_LIMIT, default 4 GiB or half the memory; past it, it spills to FILE.tmp), and
only the first problems and their count leave DuckDB. These bombs, scaled down to run in seconds
under IRW_MEMORY_LIMIT=128MB, are measured in a child process (its peak resident memory); `make
bench` measures 10x larger ones under the default limit.
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIMIT = "128MB"
# the interpreter, DuckDB's library and irw's modules take ~110-130 MB before any input; what the
# input adds must stay within DuckDB's limit and a few chunks of Python's
BOUND_KB = 400 * 1024
# 10 MB of lines of four fields, each a problem (`x y z` alone is refused at once as a header line,
# since the README's header rule: none of its fields is a number)
XYZ = b"q 0 d x\n" * 1_250_000
DUPLICATES = b"q1 Q0 d1 1 1.0 t\n" * 600_000  # 10 MB of one line: each after the first a duplicate

MEASURE = ("import resource, subprocess, sys\n"
           "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
           "sys.stderr.buffer.write(done.stderr)\n"
           "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")


def peak_kb(*args: str, env: dict) -> tuple[int, int, str]:
    """(exit status, peak resident KB, stderr) of `irw *args` in a child process of its own."""
    done = subprocess.run([sys.executable, "-c", MEASURE, sys.executable, "-m", "warehouse", *args], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, **env}, timeout=300)
    status, peak = map(int, done.stdout.split())
    return status, peak, done.stderr


def _compressed(data: bytes, suffix: str) -> bytes:
    if suffix == ".gz":
        return gzip.compress(data, 9)
    if suffix == ".xz":
        return lzma.compress(data)
    if suffix == ".bz2":
        return bz2_streams(data)
    import zstandard

    return zstandard.ZstdCompressor(level=19).compress(data)


def bz2_streams(data: bytes, piece: int = 1 << 20) -> bytes:
    """data as a .bz2 file of one bzip2 stream per ~1 MB of whole lines (as pbzip2 and lbzip2 write
    them; bz2.open, as irw, reads the streams as one file). A bomb repeats one line, so its pieces
    are alike and each different piece is compressed once: bzip2's sort is at its slowest on such
    input, tens of seconds for one stream of the 100 MB bombs."""
    streams: dict[bytes, bytes] = {}
    out = []
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + piece)
        end = len(data) if end < 0 else end + 1
        chunk = data[start:end]
        if chunk not in streams:
            streams[chunk] = bz2.compress(chunk, 9)
        out.append(streams[chunk])
        start = end
    return b"".join(out)


@pytest.mark.parametrize("suffix,data,first", [
    (".gz", XYZ, "1: expected 6 fields (qid Q0 docid rank score tag), found 4"),
    (".gz", DUPLICATES, "2: duplicate document d1 for query q1 (first at line 1)"),
    (".xz", XYZ, "1: expected 6 fields"),
    (".bz2", XYZ, "1: expected 6 fields"),
    (".zst", XYZ, "1: expected 6 fields"),
], ids=["gz-xyz", "gz-duplicates", "xz", "bz2", "zst"])
def test_a_bomb_is_refused_within_the_memory_bound(tmp_path, suffix, data, first):
    bomb = tmp_path / f"bomb.run{suffix}"
    bomb.write_bytes(_compressed(data, suffix))
    status, peak, stderr = peak_kb("ingest", "run", str(bomb), "--db", str(tmp_path / "w.duckdb"),
                                   env={"IRW_MEMORY_LIMIT": LIMIT})
    assert status == 1
    lines = stderr.splitlines()
    assert lines[0].startswith(f"Error: {bomb}:{first}") and "more problems" in lines[-1], stderr[:500]
    assert peak < BOUND_KB, f"peak {peak / 1024:.0f} MB"
    assert sorted(p.name for p in tmp_path.iterdir()) == [bomb.name]  # no warehouse, no spill folder left


def test_a_valid_file_beyond_the_limit_is_stored_whole(tmp_path):
    """A valid run larger than DuckDB's memory limit is read by spilling, every line stored."""
    run = tmp_path / "big.run.gz"
    with gzip.open(run, "wt", compresslevel=1) as out:
        for q in range(300):
            for i in range(1000):
                out.write(f"q{q} Q0 document{q}-{i} {i + 1} {1000 - i} tag\n")
    db = tmp_path / "w.duckdb"
    status, peak, stderr = peak_kb("ingest", "run", str(run), "--db", str(db), env={"IRW_MEMORY_LIMIT": LIMIT})
    assert status == 0, stderr
    assert "300000 lines, 300 queries" in stderr
    assert peak < BOUND_KB, f"peak {peak / 1024:.0f} MB"
    assert sorted(p.name for p in tmp_path.iterdir()) == [run.name, db.name]


def test_a_memory_limit_that_is_not_a_size_is_refused(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d1 1\n")
    status, _, stderr = peak_kb("ingest", "qrels", str(qrels), "--db", str(tmp_path / "w.duckdb"),
                                env={"IRW_MEMORY_LIMIT": "lots"})
    assert status == 1 and stderr == "Error: IRW_MEMORY_LIMIT='lots' is not a size; give one like 2GiB or 500MB\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.txt"]


def test_trec_eval_spills_nowhere_it_leaves(tmp_path):
    """irw trec-eval's in-memory database spilled into ./.tmp (DuckDB's default) and, exiting with
    os._exit, would leave its spill folder: it spills into $TMPDIR/irw-spill-* and removes it."""
    temp, work = tmp_path / "tmp", tmp_path / "work"
    temp.mkdir()
    work.mkdir()
    qrels = work / "q.txt"
    qrels.write_text("q1 0 d1 1\n")
    bomb = work / "bomb.run.gz"
    bomb.write_bytes(_compressed(DUPLICATES, ".gz"))
    done = subprocess.run([sys.executable, "-m", "warehouse", "trec-eval", str(qrels), str(bomb)], cwd=work,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "IRW_MEMORY_LIMIT": LIMIT, "TMPDIR": str(temp)})
    assert done.returncode == 2 and "duplicate document d1 for query q1" in done.stderr  # a bad file: trec_eval's 2
    assert sorted(p.name for p in work.iterdir()) == ["bomb.run.gz", "q.txt"] and list(temp.iterdir()) == []


# A bomb of 30 MB of lines each a problem (and, after the first, a duplicate): irw peaked at
# 700-1,150 MB under the default memory limit before its error, staging every line. Its first
# 10,000 lines decide now (warehouse/ingestion/files.py _refuse_by_head): the rest is never staged.
BAD_LINES = b"q 0 d x\n" * 3_750_000
HEAD_BOUND_KB = 400 * 1024


def _default_limit() -> dict:
    return {key: value for key, value in os.environ.items() if key != "IRW_MEMORY_LIMIT"}


def peak_kb_default_limit(*args: str) -> tuple[int, int, str]:
    done = subprocess.run([sys.executable, "-c", MEASURE, sys.executable, "-m", "warehouse", *args], cwd=ROOT,
                          capture_output=True, text=True, env=_default_limit(), timeout=300)
    status, peak = map(int, done.stdout.split())
    return status, peak, done.stderr


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("suffix", ["", ".gz", ".xz"])
def test_a_bomb_of_bad_lines_is_refused_at_its_head(tmp_path, kind, suffix):
    bomb = tmp_path / f"bomb.txt{suffix}"
    bomb.write_bytes(_compressed(BAD_LINES, suffix) if suffix else BAD_LINES)
    status, peak, stderr = peak_kb_default_limit("ingest", kind, str(bomb), "--db", str(tmp_path / "w.duckdb"))
    assert status == 1
    # the lines the whole file's check names, then their count in the lines read
    if kind == "run":  # one problem a line (a run's duplicates are judged among 6-field lines)
        shown = [f"Error: {bomb}:{line}: expected 6 fields (qid Q0 docid rank score tag), found 4"
                 for line in range(1, 21)]
        more = 10_000 - 20
    else:  # line 1 one problem, then two a line
        shown = [f"Error: {bomb}:1: grade x is not an integer"]
        for line in range(2, 12):
            shown += [f"Error: {bomb}:{line}: duplicate judgment of document d for query q (first at line 1)",
                      f"Error: {bomb}:{line}: grade x is not an integer"]
        more = 1 + 2 * 9_999 - 20
    assert stderr.splitlines() == shown[:20] + [
        f"Error: ... and {more} more problems in its first 10,000 lines; the rest of the file was not read"], stderr[:800]
    assert peak < HEAD_BOUND_KB, f"peak {peak / 1024:.0f} MB"
    assert sorted(p.name for p in tmp_path.iterdir()) == [bomb.name]


def _whole_file_message(tmp_path: Path, name: str, text: str) -> list[str]:
    path = tmp_path / name
    path.write_text(text)
    status, _, stderr = peak_kb_default_limit("ingest", "run", str(path), "--db", str(tmp_path / "w.duckdb"))
    assert status == 1
    return stderr.splitlines()


def test_a_file_with_few_problems_in_its_head_is_refused_there(tmp_path):
    """Three bad lines in the head and one past it: the head's problems refuse the file, the rest
    unread (it was read whole, every problem named, before its error)."""
    good = "".join(f"q{i} Q0 d{i} 1 1.0 t\n" for i in range(12_000))
    lines = _whole_file_message(tmp_path, "few.run", "q 1\n" * 3 + good + "q 2\n")
    path = tmp_path / "few.run"
    assert lines == [f"Error: {path}:{n}: expected 6 fields (qid Q0 docid rank score tag), found 2"
                     for n in (1, 2, 3)] + [
        "Error: ... no other problem in its first 10,000 lines; the rest of the file was not read"]


def test_a_file_whose_head_holds_no_problem_is_judged_whole(tmp_path):
    good = "".join(f"q{i} Q0 d{i} 1 1.0 t\n" for i in range(12_000))
    lines = _whole_file_message(tmp_path, "late.run", good + "q 2\n" + "q0 Q0 d0 1 1.0 t\nq1 Q0 d1 1 1.0 t\n")
    path = tmp_path / "late.run"
    assert lines == [f"Error: {path}:12001: expected 6 fields (qid Q0 docid rank score tag), found 2",
                     f"Error: {path}:12002: duplicate document d0 for query q0 (first at line 1)",
                     f"Error: {path}:12003: duplicate document d1 for query q1 (first at line 2)"]


@pytest.mark.parametrize("suffix", ["", ".gz", ".xz", ".bz2"])
def test_a_bad_first_line_is_refused_without_staging_the_rest(tmp_path, suffix):
    """Line 1 bad, then 10,000 good lines, then 30 MB of lines each a duplicate: the head holds
    one problem, and refuses the file (it was staged whole, 30 MB of duplicates with it)."""
    head = b"q0 Q0 d0 one 1.0 t\n" + b"".join(b"q%d Q0 d%d 1 1.0 t\n" % (i, i) for i in range(1, 10_001))
    data = head + b"q1 Q0 d1 1 1.0 t\n" * 1_800_000
    bomb = tmp_path / f"late.run{suffix}"
    bomb.write_bytes(_compressed(data, suffix) if suffix else data)
    status, peak, stderr = peak_kb_default_limit("ingest", "run", str(bomb), "--db", str(tmp_path / "w.duckdb"))
    assert status == 1
    assert stderr.splitlines() == [
        f"Error: {bomb}:1: rank one is not an integer",
        "Error: ... no other problem in its first 10,000 lines; the rest of the file was not read"], stderr[:800]
    assert peak < HEAD_BOUND_KB, f"peak {peak / 1024:.0f} MB"
    assert sorted(p.name for p in tmp_path.iterdir()) == [bomb.name]


def test_a_short_bad_file_is_counted_whole(tmp_path):
    """A file that ends within the head is checked whole: the count is the file's."""
    lines = _whole_file_message(tmp_path, "short.run", "q 1\n" * 30)
    assert lines[-1] == "Error: ... and 10 more problems"
