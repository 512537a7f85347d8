"""Runs kept a folder per collection and in it a folder per system, every file named alike
(`runs/dl21/BM25/trec_results.txt`, `runs/covid/BM25/trec_results.txt` ...): a lab walk found no
documented way to store them (the auto rule refuses them, and its hints went round: `{short}.{folder}`
made each run a system of its own, and no template field named the collection's folder). The field
{above} (the folder holding the file's folder) does, and the hint gives it with `--system '{folder}'`:
the runs are named and grouped as the publisher's folder-per-system layout names them."""
from __future__ import annotations

import shlex

import pytest

import warehouse

from conftest import Cli

SYSTEMS = ("BM25", "BM25_RM3", "SPLADE_P_P_ENSEMBLE_DISTIL")
COLLECTIONS = ("dl21", "covid", "news")


@pytest.fixture
def by_collection(multi_collection, tmp_path):
    root = tmp_path / "runs"
    for collection in (*COLLECTIONS, "dl22"):
        for system in SYSTEMS:
            (root / collection / system).mkdir(parents=True)
            (root / collection / system / "trec_results.txt").write_bytes(
                (multi_collection / "runs" / system / f"trec_results_{collection}.txt").read_bytes())
    return root


def runs_of(db) -> set[tuple]:
    with warehouse.open(db, read_only=True) as wh:
        return set(wh.sql("select name, system, sha256 from runs").rows)


def test_the_hint_for_collection_then_system_folders_names_them_as_the_system_folders_do(
        by_collection, multi_collection, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    irw = Cli(tmp_path / "irw.duckdb")
    given = [f"runs/{collection}/" for collection in COLLECTIONS]
    refused = irw("ingest", "run", *(f"{folder}{system}/" for folder in given for system in SYSTEMS))
    assert refused.exit_code == 1
    hint = "pass `--name-template '{folder}.{above}' --system '{folder}'` to name every file of the batch apart"
    assert all(line.endswith(hint) for line in refused.stderr.splitlines()[:-1]), refused.stderr
    command = refused.stderr.splitlines()[0].split("`")[1]
    stored = irw("ingest", "run", *(f"{folder}{system}/" for folder in given for system in SYSTEMS),
                 *shlex.split(command))
    assert stored.exit_code == 0, stored.stderr
    # a collection added later alone, by the same command
    later = irw("ingest", "run", *(f"runs/dl22/{system}/" for system in SYSTEMS), *shlex.split(command))
    assert later.exit_code == 0, later.stderr
    publisher = Cli(tmp_path / "publisher.duckdb")
    assert publisher("ingest", "run", *(multi_collection / "runs" / system for system in SYSTEMS)).exit_code == 0
    assert runs_of(irw.db) == runs_of(publisher.db)
    assert {(name, system) for name, system, _ in runs_of(irw.db)} == {
        (f"{system}.{collection}", system) for system in SYSTEMS for collection in (*COLLECTIONS, "dl22")}


def test_above_is_a_template_field_said_among_the_others(tmp_path):
    irw = Cli(tmp_path / "irw.duckdb")
    result = irw("ingest", "run", tmp_path, "--name-template", "{parent}")
    assert result.exit_code != 0
    assert "{parent} is not a field; the fields are {tag}, {file}, {stem}, {short}, {folder}, {above}" in result.stderr


def test_above_of_a_folder_at_the_top_of_the_file_system_is_refused(tmp_path):
    """A file in /tmp named by '{folder}.{above}' was stored as run `tmp.` (a regression hunt)."""
    import tempfile

    from conftest import RUN_ROWS, run_text

    irw = Cli(tmp_path / "irw.duckdb")
    with tempfile.NamedTemporaryFile("w", dir="/tmp", suffix=".txt") as top:
        top.write(run_text(RUN_ROWS))
        top.flush()
        result = irw("ingest", "run", top.name, "--name-template", "{folder}.{above}")
    assert result.exit_code == 2  # a usage error, as a template's other mistakes are
    assert result.stderr == (f"Error: {top.name}: --name-template '{{folder}}.{{above}}': {{above}} names no folder "
                             "here: the file's folder, /tmp, is at the top of the file system\n")
