"""Issue 24: .bz2 and .xz files cost what .gz files cost.

They were decompressed whole into $TMPDIR before DuckDB read them: a 436 KB .xz of bad lines wrote
3 GB there, then said "the file is empty". Python now decompresses them into a FIFO DuckDB reads in
order (warehouse/ingestion/files.py _Feed): nothing decompressed is written to disk, a bad file stops at its
first bad lines, and a valid file gives the same rows and numbers as the plain one.
"""
from __future__ import annotations

import lzma
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

import warehouse
from warehouse.errors import InputFileError

from test_memory_bound import bz2_streams

ROOT = Path(__file__).resolve().parents[1]
COMPRESS = {".bz2": bz2_streams, ".xz": lzma.compress}
# 30 MB of four-field lines, each a problem for a run and for qrels (it was 30 MB in $TMPDIR)
BAD_LINES = b"q 0 d x\n" * 3_750_000
FIRST = {"run": "1: expected 6 fields (qid Q0 docid rank score tag), found 4",
         "qrels": "1: grade x is not an integer"}
# what $TMPDIR may hold at any moment: FIFOs (no bytes) and folders, no decompressed text
TMPDIR_BOUND = 1 << 20


def _bytes_under(folder: Path) -> int:
    total = 0
    for parent, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(parent, name)).st_size
            except OSError:
                pass  # removed meanwhile
    return total


def _irw_watching_tmpdir(args: list[str], temp: Path, env: dict | None = None) -> tuple[int, str, int]:
    """(exit status, stderr, the most bytes seen in files under temp while it ran) of `irw *args`
    run with TMPDIR=temp (or, given env, with env added: temp is then any folder to watch)."""
    proc = subprocess.Popen([sys.executable, "-m", "warehouse", *map(str, args)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {"TMPDIR": str(temp)})})
    most = 0
    chunks: list[str] = []
    reader = threading.Thread(target=lambda: chunks.append(proc.stderr.read()))
    reader.start()
    deadline = time.monotonic() + 300
    while proc.poll() is None and time.monotonic() < deadline:
        most = max(most, _bytes_under(temp))
        time.sleep(0.005)
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    reader.join()
    return proc.returncode, "".join(chunks), most


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("suffix", [".bz2", ".xz"])
def test_a_bomb_of_bad_lines_writes_nothing_to_tmpdir(tmp_path, suffix, kind):
    bomb = tmp_path / f"bomb.txt{suffix}"
    bomb.write_bytes(COMPRESS[suffix](BAD_LINES))
    temp = tmp_path / "tmp"
    temp.mkdir()
    status, stderr, most = _irw_watching_tmpdir(["ingest", kind, bomb, "--db", tmp_path / "w.duckdb"], temp)
    assert status == 1 and stderr.startswith(f"Error: {bomb}:{FIRST[kind]}\n"), stderr[:500]
    assert most < TMPDIR_BOUND, f"{most:,} bytes in $TMPDIR"
    assert list(temp.iterdir()) == []


@pytest.mark.parametrize("suffix", [".gz", ".zst", ".bz2", ".xz"])
def test_a_bomb_of_duplicate_lines_is_refused_before_it_is_staged(tmp_path, suffix):
    """Each line a valid run line, each after the first a duplicate: the column reader took every
    line before its whole-file check found them, spilling past the memory limit into W.tmp. A
    compressed file's head is checked first now: nothing is staged or spilled."""
    from test_memory_bound import _compressed

    bomb = tmp_path / f"dup.run{suffix}"
    bomb.write_bytes(_compressed(b"q1 Q0 d1 1 1.0 t\n" * 6_000_000, suffix))
    db = tmp_path / "w.duckdb"
    spill = Path(str(db) + ".tmp")
    status, stderr, most = _irw_watching_tmpdir(["ingest", "run", bomb, "--db", db], spill,
                                                env={"IRW_MEMORY_LIMIT": "128MB"})
    assert status == 1 and stderr.startswith(
        f"Error: {bomb}:2: duplicate document d1 for query q1 (first at line 1)\n"), stderr[:500]
    assert stderr.endswith("in its first 10,000 lines; the rest of the file was not read\n"), stderr[-300:]
    assert most < TMPDIR_BOUND, f"{most:,} bytes spilled"


@pytest.mark.parametrize("suffix", [".bz2", ".xz"])
def test_trec_eval_refuses_a_bomb_writing_nothing_to_tmpdir(tmp_path, suffix):
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d1 1\n")
    bomb = tmp_path / f"bomb.run{suffix}"
    bomb.write_bytes(COMPRESS[suffix](BAD_LINES))
    temp = tmp_path / "tmp"
    temp.mkdir()
    status, stderr, most = _irw_watching_tmpdir(["trec-eval", qrels, bomb], temp)
    assert status == 2 and stderr.startswith(f"Error: {bomb}:{FIRST['run']}\n"), stderr[:500]
    assert most < TMPDIR_BOUND, f"{most:,} bytes in $TMPDIR"
    assert list(temp.iterdir()) == []


@pytest.mark.parametrize("suffix", [".bz2", ".xz"])
def test_the_library_leaves_no_thread_or_fifo(tmp_path, monkeypatch, suffix):
    """Refused or stored, a streamed file leaves no writer thread and nothing in $TMPDIR."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    bad = tmp_path / f"bad.run{suffix}"
    bad.write_bytes(COMPRESS[suffix](b"q1 Q0 d1 1 1.0 t\n" * 50_000 + b"q1 Q0 d2 x 1.0 t\n"))
    good = tmp_path / f"good.run{suffix}"
    good.write_bytes(COMPRESS[suffix](b"".join(b"q%d Q0 d%d 1 1.0 t\n" % (i, i) for i in range(50_000))))
    with warehouse.open(tmp_path / "w.duckdb") as wh:
        with pytest.raises(InputFileError, match=r"bad\.run.*:2: duplicate document d1"):
            wh.ingest_run(bad)
        assert wh.ingest_run(good).rows == 50_000
    assert [t.name for t in threading.enumerate() if t.name == "irw-feed"] == []
    assert list(temp.iterdir()) == []


def _stored(db: Path) -> tuple[list, list]:
    with warehouse.open(db, read_only=True) as wh:
        rows = wh.db.fetchall("select query_id, doc_id, rank_given, score, trec_rank from run_rows order by all")
        qrels = wh.db.fetchall("select query_id, doc_id, grade from qrels order by all")
    return rows, qrels


@pytest.mark.parametrize("suffix", [".bz2", ".xz"])
def test_a_valid_file_gives_what_the_plain_file_gives(conformance, tmp_path, suffix):
    """DL19's BM25 run and qrels, compressed: the same stored rows, and `irw trec-eval` the same
    bytes, as the plain files; $TMPDIR empty after."""
    source = conformance / "dl19-passage"
    plain_run, plain_qrels = source / "runs" / "run.dl19.BM25.txt", source / "qrels.dl19-passage.txt"
    run, qrels = tmp_path / f"run.dl19.BM25.txt{suffix}", tmp_path / f"qrels.dl19-passage.txt{suffix}"
    run.write_bytes(COMPRESS[suffix](plain_run.read_bytes()))
    qrels.write_bytes(COMPRESS[suffix](plain_qrels.read_bytes()))
    for db, files in ((tmp_path / "plain.duckdb", (plain_qrels, plain_run)), (tmp_path / "packed.duckdb", (qrels, run))):
        with warehouse.open(db) as wh:
            wh.ingest_qrels(files[0], "dl19")
            wh.ingest_run(files[1], "bm25")
    plain, packed = _stored(tmp_path / "plain.duckdb"), _stored(tmp_path / "packed.duckdb")
    assert len(plain[0]) == 4_300 and len(plain[1]) > 9_000
    assert packed == plain
    temp = tmp_path / "tmp"
    temp.mkdir()
    outputs = []
    for files in ((plain_qrels, plain_run), (qrels, run)):
        done = subprocess.run([sys.executable, "-m", "warehouse", "trec-eval", "-m", "all_trec", "-q", *map(str, files)],
                              cwd=ROOT, capture_output=True, timeout=300,
                              env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(temp)})
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[1] == outputs[0] and b"map" in outputs[0]
    assert list(temp.iterdir()) == []
    measures = ["map", "ndcg_cut.10", "P.10", "recall.1000", "recip_rank"]
    plain_eval = warehouse.evaluate_files(plain_qrels, {"bm25": plain_run}, measures, per_query=True)
    packed_eval = warehouse.evaluate_files(qrels, {"bm25": run}, measures, per_query=True)
    assert packed_eval.summary.rows == plain_eval.summary.rows and len(plain_eval.summary.rows) == 5
    assert packed_eval.per_query.rows == plain_eval.per_query.rows and len(plain_eval.per_query.rows) == 5 * 43


@pytest.mark.parametrize("suffix", [".gz", ".zst", ".bz2", ".xz"])
def test_a_file_its_head_refuses_is_judged_by_its_first_bytes(tmp_path, suffix):
    """A file whose head refuses it is judged by its first 4 MiB (the most the head reads): a
    U+0001 there is named, as before; one past them is not read, nor is the rest of the file (the
    check of a .gz or .zst file's data read it whole, whatever its size)."""
    from test_memory_bound import _compressed

    bad = b"q 0 d x\n"
    near = tmp_path / f"near.run{suffix}"
    near.write_bytes(_compressed(bad * 20_000 + b"q1 Q0 d\x01 1 1 t\n" + bad * 600_000, suffix))
    far = tmp_path / f"far.run{suffix}"
    far.write_bytes(_compressed(bad * 600_000 + b"q1 Q0 d\x01 1 1 t\n" + bad * 10, suffix))
    db = tmp_path / "w.duckdb"
    with warehouse.open(db) as wh:
        with pytest.raises(InputFileError) as near_error:
            wh.ingest_run(near)
        with pytest.raises(InputFileError) as far_error:
            wh.ingest_run(far)
    assert str(near_error.value) == f"{near}:20001: the control character U+0001 inside the line; it is not " \
                                    "text a TREC file holds: remove it"
    lines = str(far_error.value).splitlines()
    assert lines[0] == f"{far}:1: expected 6 fields (qid Q0 docid rank score tag), found 4"
    assert lines[-1] == "... and 9980 more problems in its first 10,000 lines; the rest of the file was not read"
