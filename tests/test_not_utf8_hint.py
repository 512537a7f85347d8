"""A run that is not UTF-8 says how to convert it: a UTF-16 file (as Windows tools write them, byte
order mark first) or Latin-1 text; a messy-input walk got the bare "bytes that are not valid UTF-8"
for both. The printed iconv command, run as printed, gives a file irw reads with the numbers of the
original."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

import warehouse

from conftest import Cli

pytestmark = pytest.mark.skipif(shutil.which("iconv") is None, reason="no iconv on this machine")


@pytest.mark.parametrize("encoding, says", [("utf-16", "a UTF-16 file (a NUL byte beside each letter)"),
                                            ("latin-1", "if it is Latin-1 text")])
def test_the_printed_iconv_command_converts_the_file(conformance, tmp_path, encoding, says):
    original = (conformance / "dl19-passage" / "runs" / "run.dl19.BM25.txt").read_text()
    first_doc = original.split()[2]
    text = original.replace(f" {first_doc} ", f" {first_doc}é ", 1)  # a letter Latin-1 writes as one byte
    assert text != original
    path = tmp_path / "run.BM25.txt"
    path.write_bytes(text.encode(encoding))
    irw = Cli(tmp_path / "w.duckdb")
    refused = irw("ingest", "run", path)
    assert refused.exit_code == 1
    assert f"bytes that are not valid UTF-8{':' if encoding == 'utf-16' else ';'} {says}" in refused.stderr
    command = re.findall(r"`([^`]*)`", refused.stderr)[0]
    assert subprocess.run(["bash", "-c", command], cwd=tmp_path).returncode == 0
    converted = tmp_path / "run.BM25.txt.utf8"
    assert converted.read_text(encoding="utf-8") == text
    plain = tmp_path / "original.txt"
    plain.write_text(text, encoding="utf-8")
    qrels = conformance / "dl19-passage" / "qrels.dl19-passage.txt"
    assert warehouse.evaluate_files(qrels, {"r": converted}, ["AP"]).value("r", "AP") == \
        warehouse.evaluate_files(qrels, {"r": plain}, ["AP"]).value("r", "AP")
