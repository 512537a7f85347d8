"""A binary file given as a run or qrels (an executable, an image, an archive: a bulk-ingest walk
gave one among 151 runs) is refused in one line saying so; its lines were refused one by one, with
twenty lines of carriage returns and control characters."""
from __future__ import annotations

import gzip
import os
import sys
from pathlib import Path

import pytest

from conftest import Cli


@pytest.fixture
def executable(tmp_path) -> Path:
    """The head of a real executable: the Python running the tests, its links followed."""
    path = tmp_path / "results.txt"
    path.write_bytes(Path(os.path.realpath(sys.executable)).read_bytes()[:20000])
    assert path.read_bytes().count(b"\0") > 16
    return path


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("compressed", [False, True])
def test_a_binary_file_is_refused_in_one_line(executable, tmp_path, kind, compressed):
    path = executable
    if compressed:
        path = tmp_path / "results.txt.gz"
        path.write_bytes(gzip.compress(executable.read_bytes()))
    at = path.read_bytes().index(b"\0") + 1 if not compressed else executable.read_bytes().index(b"\0") + 1
    result = Cli(tmp_path / "w.duckdb")("ingest", kind, path)
    assert result.exit_code == 1 and result.stdout == ""
    line = executable.read_bytes()[:at].count(b"\n") + 1
    assert result.stderr == (f"Error: {path}:{line}: a binary file (a NUL byte at byte {at}: an executable, image or "
                             f"archive?), not a TREC {kind} file of text lines\n")
    assert not (tmp_path / "w.duckdb").exists()
