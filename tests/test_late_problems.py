"""Issue 24, Exhaustion: a file whose first lines are clean and whose first problem comes later is
refused at that line without being staged whole.

A file's first 10,000 lines were checked before the rest was read (the head check), but a file
clean there was staged whole before its problems were looked at: a bad line or a duplicate at
line 25,001 of a 400,000-line file spilled 3.8 MB into W.tmp under IRW_MEMORY_LIMIT=48MB, and
with IRW_TEMP_LIMIT=2MB it was refused with "needs more memory" instead of its line. Line mode now
stages a file in windows of lines (warehouse/ingestion/files.py _stage_lines) and the column readers stop at
a line they cannot take and at a row cap: such a file is refused at its first problem, reading the
lines up to a window past it, spilling nothing.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from test_compressed_streams import TMPDIR_BOUND, _irw_watching_tmpdir

LIMITS = {"IRW_MEMORY_LIMIT": "48MB", "IRW_TEMP_LIMIT": "2MB"}
CLEAN, TOTAL = 25_000, 400_000  # the first problem is line 25,001 of 400,001
RUN_LINES = [b"q%d Q0 d%d %d %d tag\n" % (i // 100, i, i % 100 + 1, 1000 - i % 100) for i in range(TOTAL)]
# (the line inserted after the clean lines, the message's first line after the path)
RUN_PROBLEMS = {"bad": (b"q1 Q0 dx 1 abc tag\n", ":25001: score abc is not a number"),
                "short": (b"x y z\n", ":25001: expected 6 fields (qid Q0 docid rank score tag), found 3"),
                "duplicate": (RUN_LINES[7], ":25001: duplicate document d7 for query q0 (first at line 8)")}
# the first window under 48MB: 11,000 lines, then 44,000 (warehouse/ingestion/files.py _staging_caps)
REST_UNREAD = "no other problem in its first 44,000 lines; the rest of the file was not read\n"


def _write(path: Path, data: bytes) -> Path:
    """data written to path, compressed as its suffix says (at fast levels: 14 MB of text)."""
    import bz2
    import gzip
    import lzma

    import zstandard

    compress = {".gz": lambda: gzip.compress(data, 1), ".zst": lambda: zstandard.ZstdCompressor(level=1).compress(data),
                ".bz2": lambda: bz2.compress(data, 1), ".xz": lambda: lzma.compress(data, preset=0)}
    path.write_bytes(compress[path.suffix]() if path.suffix in compress else data)
    return path


def _refused_at(args: list, db: Path, first: str, path: Path) -> None:
    status, stderr, most = _irw_watching_tmpdir(args, Path(str(db) + ".tmp"), env=LIMITS)
    assert status == 1 and stderr.startswith(f"Error: {path}{first}\n"), stderr[:500]
    assert stderr.endswith(REST_UNREAD), stderr[-300:]
    assert most < TMPDIR_BOUND, f"{most:,} bytes in W.tmp"


@pytest.mark.parametrize("suffix,problem", [(suffix, "bad") for suffix in ("", ".gz", ".zst", ".bz2", ".xz")]
                         + [(suffix, "duplicate") for suffix in ("", ".gz", ".xz")])
def test_a_late_problem_in_a_run_is_refused_at_its_line_spilling_nothing(tmp_path, suffix, problem):
    line, first = RUN_PROBLEMS[problem]
    run = _write(tmp_path / f"late.run{suffix}", b"".join(RUN_LINES[:CLEAN]) + line + b"".join(RUN_LINES[CLEAN:]))
    db = tmp_path / "w.duckdb"
    _refused_at(["ingest", "run", run, "--db", db], db, first, run)


def test_a_late_short_line_is_refused_at_its_line_by_trec_eval(tmp_path):
    """`irw trec-eval` reads its files as ingest does (a database of its own, in memory or spilling
    into $TMPDIR): the same refusal."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d1 1\n")
    line, first = RUN_PROBLEMS["short"]
    run = _write(tmp_path / "late.run.xz", b"".join(RUN_LINES[:CLEAN]) + line + b"".join(RUN_LINES[CLEAN:]))
    temp = tmp_path / "tmp"
    temp.mkdir()
    status, stderr, most = _irw_watching_tmpdir(["trec-eval", qrels, run], temp, env={**LIMITS, "TMPDIR": str(temp)})
    assert status == 2 and stderr.startswith(f"Error: {run}{first}\n"), stderr[:500]
    assert stderr.endswith(REST_UNREAD), stderr[-300:]
    assert most < TMPDIR_BOUND, f"{most:,} bytes in $TMPDIR"


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_a_late_duplicate_judgment_is_refused_at_its_line_spilling_nothing(tmp_path, suffix):
    lines = [b"q%d 0 d%d %d\n" % (i // 100, i, i % 3) for i in range(TOTAL)]
    qrels = _write(tmp_path / f"late.qrels{suffix}", b"".join(lines[:CLEAN]) + lines[7] + b"".join(lines[CLEAN:]))
    db = tmp_path / "w.duckdb"
    _refused_at(["ingest", "qrels", qrels, "--db", db], db,
                ":25001: duplicate judgment of document d7 for query q0 (first at line 8)", qrels)


def test_a_late_bad_preference_is_refused_at_its_line_spilling_nothing(tmp_path):
    lines = [b"q%d 1 1 d%d %d\n" % (i // 100, i, i % 3) for i in range(TOTAL)]
    prefs = _write(tmp_path / "late.prefs", b"".join(lines[:CLEAN]) + b"q1 1 1 dx -1\n" + b"".join(lines[CLEAN:]))
    db = tmp_path / "w.duckdb"
    _refused_at(["ingest", "prefs", prefs, "--db", db], db, ":25001: rel_level -1 is not a number >= 0", prefs)


def test_a_valid_file_longer_than_a_window_is_stored_whole(tmp_path, monkeypatch):
    """Read in windows, a valid file is stored whole: every line, as without the windows."""
    import warehouse

    run = _write(tmp_path / "valid.run.gz", b"".join(RUN_LINES[:CLEAN]) + b"q1 Q0 d1 1 1.0\ttag\n"
                 + b"".join(RUN_LINES[CLEAN + 1:]))  # a tab: not the column reader's, line mode's
    monkeypatch.setenv("IRW_MEMORY_LIMIT", "48MB")
    with warehouse.open(tmp_path / "w.duckdb") as wh:
        result = wh.ingest_run(run)
    assert (result.rows, result.queries) == (TOTAL, TOTAL // 100)


def test_a_long_run_given_as_qrels_is_still_said_to_be_a_run(tmp_path):
    """A window that looks like the other kind is refused as the whole file is, without the rest read."""
    run = _write(tmp_path / "long.run.gz", b"".join(RUN_LINES))
    db = tmp_path / "w.duckdb"
    status, stderr, most = _irw_watching_tmpdir(["ingest", "qrels", run, "--db", db], Path(str(db) + ".tmp"), env=LIMITS)
    assert status == 1 and stderr == (f"Error: {run}: looks like a run file (6 fields: qid Q0 docid rank score tag), "
                                      "not qrels; a run is ingested with `irw ingest run`\n"), stderr[:500]
    assert most < TMPDIR_BOUND, f"{most:,} bytes in W.tmp"


@pytest.mark.conformance
def test_an_evaluation_past_irw_temp_limit_says_so_and_stores_nothing(tmp_path, conformance):
    """Past IRW_TEMP_LIMIT the command is told of that limit (a larger IRW_MEMORY_LIMIT would not
    help), and the evaluation stores nothing."""
    import os
    import subprocess
    import sys

    dl19, db = conformance / "dl19-passage", tmp_path / "w.duckdb"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
           "IRW_MEMORY_LIMIT": "20MB", "IRW_TEMP_LIMIT": "1MB"}

    def irw(*args):
        return subprocess.run([sys.executable, "-m", "warehouse", *map(str, args), "--db", str(db)],
                              capture_output=True, text=True, env=env)

    assert irw("ingest", "qrels", dl19 / "qrels.dl19-passage.txt", "--name", "dl19").returncode == 0
    assert irw("ingest", "run", dl19 / "runs" / "run.dl19.REP_LLAMA.txt", "--name", "REP_LLAMA").returncode == 0
    refused = irw("eval", "-m", "all_trec")
    assert (refused.returncode, refused.stdout) == (1, ""), refused.stderr
    assert refused.stderr.startswith("Error: the command needed more disk to spill to than IRW_TEMP_LIMIT lets "
                                     "DuckDB use (1MB): Out of Memory Error: "), refused.stderr
    assert ").; " not in refused.stderr
    assert refused.stderr.endswith("; nothing was stored: run it again with a larger IRW_TEMP_LIMIT, or without it\n")
    assert irw("sql", "select count(*) as n from scores", "-f", "csv").stdout == "n\n0\n"
