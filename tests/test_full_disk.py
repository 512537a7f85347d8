"""A full disk during ingest and eval (issue 11): an `Error:` line that says so, exit 1, no
traceback, and the warehouse as it was; with space freed the same command succeeds. The disk is a
small tmpfs mounted for the test (root only: skipped elsewhere; CI runs as root)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import Cli, dl19_expected, fingerprint_at


@pytest.fixture
def small_disk(tmp_path):
    def mount(size: str) -> Path:
        disk = tmp_path / f"disk-{size}"
        disk.mkdir()
        if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(disk)],
                                               capture_output=True).returncode != 0:
            pytest.skip("needs root and a mountable tmpfs to fill a disk")
        mounted.append(disk)
        return disk

    mounted: list[Path] = []
    yield mount
    for disk in mounted:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def fill(disk: Path, leave: int = 4096) -> Path:
    stat = os.statvfs(disk)
    filler = disk / "filler"
    filler.write_bytes(b"\0" * max(0, stat.f_bavail * stat.f_frsize - leave))
    return filler


def assert_disk_full_error(result, db: Path) -> None:
    assert result.exit_code == 1
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"Error: the disk holding the warehouse {db} is full"), result.stderr
    assert "Traceback" not in result.stderr and "changed or became unreadable" not in result.stderr


def test_ingest_on_a_full_disk_stores_nothing_and_says_why(small_disk, conformance):
    folder = conformance / "dl19-passage"
    db = small_disk("3m") / "irw.duckdb"
    irw = Cli(db)
    assert irw("ingest", "qrels", folder / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    before = fingerprint_at(db)
    result = irw("ingest", "run", folder / "runs" / "run.dl19.REP_LLAMA.txt")  # 43,000 lines: no room
    assert_disk_full_error(result, db)
    assert fingerprint_at(db) == before
    assert irw("qrels").exit_code == 0  # the warehouse opens, its qrels set listed


def test_eval_on_a_full_disk_stores_nothing_then_succeeds_with_room(small_disk, conformance):
    folder = conformance / "dl19-passage"
    db = small_disk("8m") / "irw.duckdb"
    irw = Cli(db)
    assert irw("ingest", "qrels", folder / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    assert irw("ingest", "run", folder / "runs" / "run.dl19.BM25.txt", "--name", "BM25").exit_code == 0
    filler = fill(db.parent)
    before = fingerprint_at(db)
    result = irw("eval", "-m", "all_trec")
    assert_disk_full_error(result, db)
    assert result.stdout == ""
    assert fingerprint_at(db) == before
    filler.unlink()
    again = irw("eval", "-m", "AP", "-m", "nDCG@10", "--format", "csv")
    assert again.exit_code == 0, again.stderr
    expected = dl19_expected(conformance, "BM25")
    _, row = again.stdout.splitlines()
    _, _, ap, ndcg = row.split(",")
    assert (f"{float(ap):.4f}", f"{float(ndcg):.4f}") == (expected[("map", "all")], expected[("ndcg_cut_10", "all")])


@pytest.mark.parametrize("command", [
    ["trec-eval", "-q", "-m", "all_trec", "QRELS", "RUN"],   # the drop-in's own entry, before Typer
    ["eval", "-m", "AP", "--db", "DB"],
    ["runs", "--db", "DB"],
])
def test_output_to_a_full_disk_is_an_error_line_not_a_traceback(conformance, tmp_path, command):
    import sys

    folder = conformance / "dl19-passage"
    db = tmp_path / "w.duckdb"
    irw = [sys.executable, "-m", "warehouse"]
    for step in (["ingest", "qrels", str(folder / "qrels.dl19-passage.txt"), "--name", "dl19"],
                 ["ingest", "run", str(folder / "runs" / "run.dl19.BM25.txt")]):
        subprocess.run([*irw, *step, "--db", str(db)], check=True, capture_output=True)
    argv = [{"QRELS": str(folder / "qrels.dl19-passage.txt"), "RUN": str(folder / "runs" / "run.dl19.BM25.txt"),
             "DB": str(db)}.get(a, a) for a in command]
    with open("/dev/full", "w") as full:
        result = subprocess.run([*irw, *argv], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == "Error: cannot write the output: No space left on device"
    assert "Traceback" not in result.stderr
