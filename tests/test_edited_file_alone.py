"""A run file edited where it was read from is refused as that run's new version however it is
given: a regression walk stored f/ (run.dl19.BM25.txt and run.dl19.BM25_RM3.txt, named BM25 and
BM25_RM3), edited run.dl19.BM25.txt and gave it alone: it was stored as a new run, run.dl19.BM25,
in a system of its own, without a word (the folder again was refused, as documented)."""
from __future__ import annotations

import re
import shlex
import shutil

import warehouse

from conftest import Cli


def test_an_edited_file_given_alone_is_its_run_s_new_version(conformance, tmp_path):
    runs = conformance / "dl19-passage" / "runs"
    folder = tmp_path / "f"
    folder.mkdir()
    for name in ("BM25", "BM25_RM3"):
        shutil.copy(runs / f"run.dl19.{name}.txt", folder)
    irw = Cli(tmp_path / "w.duckdb")
    assert irw("ingest", "run", folder).exit_code == 0
    edited = folder / "run.dl19.BM25.txt"
    edited.write_text("".join(edited.read_text().splitlines(True)[:-1]))
    for given in (edited, folder):
        refused = irw("ingest", "run", given)
        assert refused.exit_code == 1, refused.stderr
        first = refused.stderr.splitlines()[0]
        assert first.startswith(f"Error: {edited}: run BM25 already exists with different content; pass `--replace`")
    with warehouse.open(tmp_path / "w.duckdb", read_only=True) as wh:
        assert sorted(wh.sql("select name, system from runs").rows) == [("BM25", "BM25"), ("BM25_RM3", "BM25_RM3")]
    hint = re.findall(r"`([^`]*)`", first)[-1]
    assert irw(*shlex.split(hint)[1:]).exit_code == 0
    with warehouse.open(tmp_path / "w.duckdb", read_only=True) as wh:
        systems = dict(wh.sql("select name, system from runs").rows)
    assert len(systems) == 3 and set(systems.values()) == {"BM25", "BM25_RM3"}
