"""A folder of runs holding a link to nothing (a run moved away), a loop of links, or a pipe: a
bulk-ingest walk's folder of 151 files stored 150, exit 0, and said nothing of the link. A link in
a folder is read as the same link given alone (refused, naming it), and a file that is no regular
file is said to be left out."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from warehouse.commands import trec_eval

from conftest import Cli

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def folder(conformance, tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(conformance / "dl19-passage" / "runs" / "run.dl19.BM25.txt", runs / "a.txt")
    return runs


def test_a_link_to_nothing_is_refused_and_nothing_is_stored(folder, tmp_path):
    (folder / "moved.txt").symlink_to(tmp_path / "elsewhere" / "moved.txt")
    irw = Cli(tmp_path / "w.duckdb")
    result = irw("ingest", "run", folder)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"Error: {folder}/moved.txt: a symbolic link to {tmp_path}/elsewhere/moved.txt, which does not exist",
        "Error: nothing was stored: 1 of 2 files cannot be ingested as they are; fix the files named above, or "
        "leave them out, and run the command again"]
    assert not (tmp_path / "w.duckdb").exists()  # a failed first ingest leaves no warehouse behind


def test_a_loop_of_links_is_refused(folder, tmp_path):
    (folder / "loop_a").symlink_to("loop_b")
    (folder / "loop_b").symlink_to("loop_a")
    result = Cli(tmp_path / "w.duckdb")("ingest", "run", folder)
    assert result.exit_code == 1
    assert f"Error: {folder}/loop_a: cannot read the file: Too many levels of symbolic links" in result.stderr
    assert f"Error: {folder}/loop_b: cannot read the file: Too many levels of symbolic links" in result.stderr


def test_a_pipe_is_said_to_be_left_out(folder, tmp_path):
    os.mkfifo(folder / "pipe")
    process = subprocess.run([sys.executable, "-m", "warehouse", "ingest", "run", "--db", str(tmp_path / "w.duckdb"),
                              str(folder)], capture_output=True, text=True, timeout=300,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert process.returncode == 0, process.stderr
    assert process.stderr.splitlines()[0] == \
        f"{folder}/pipe: left out of the folder's runs (not a regular file: a pipe, socket or device)"
    assert f"ingested run a: 4300 lines, 43 queries from {folder}/a.txt" in process.stderr


def test_trec_eval_refuses_a_folder_s_link_to_nothing(conformance, folder, tmp_path, capsys):
    (folder / "moved.txt").symlink_to(tmp_path / "gone.txt")
    status = trec_eval.main(["-m", "map", str(conformance / "dl19-passage" / "qrels.dl19-passage.txt"), str(folder)])
    out, err = capsys.readouterr()
    assert (status, out) == (2, "")
    assert "moved.txt: a symbolic link to" in err and "which does not exist" in err
