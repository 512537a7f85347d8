"""Several nights ingested in one command (`irw ingest run nightly/*/*/`, a backfill of a folder per
night and per system): every file was refused, each naming every other file of its name (a
bulk-ingest walk: 120 files, 113 KB of stderr), where the nights ingested one by one are named
{name}.{night}. One command now stores what the nights one by one store, and a second changes
nothing."""
from __future__ import annotations

import pytest

import warehouse

from conftest import Cli

SYSTEMS = ("BM25", "BM25_RM3")
COLLECTIONS = ("dl21", "covid")
NIGHTS = ("2026-03-01", "2026-03-02", "2026-03-03")


@pytest.fixture
def nightly(multi_collection, tmp_path):
    """Three nights of two systems' runs of two collections; BM25 changes every night (its scores
    moved by the night's number), BM25_RM3 never (the same bytes each night)."""
    root = tmp_path / "nightly"
    for number, night in enumerate(NIGHTS, 1):
        for system in SYSTEMS:
            (root / night / system).mkdir(parents=True)
            for collection in COLLECTIONS:
                lines = (multi_collection / "runs" / system / f"trec_results_{collection}.txt").read_text().splitlines()
                shift = number if system == "BM25" else 0
                (root / night / system / f"trec_results_{collection}.txt").write_text("".join(
                    " ".join([*f[:4], f"{float(f[4]) + shift / 1000:.6f}", f[5]]) + "\n"
                    for f in (line.split() for line in lines)))
    return root


def runs_of(db) -> set[tuple]:
    with warehouse.open(db, read_only=True) as wh:
        return set(wh.sql("select name, system, file_created_at, date_source, sha256 from runs").rows)


def test_a_backfill_of_nights_in_one_command_is_stored_as_the_nights_one_by_one(nightly, tmp_path):
    at_once = Cli(tmp_path / "at_once.duckdb")
    result = at_once("ingest", "run", *sorted(nightly.glob("*/*")))
    assert result.exit_code == 0, result.stderr
    by_night = Cli(tmp_path / "by_night.duckdb")
    for night in NIGHTS:
        assert by_night("ingest", "run", *sorted((nightly / night).glob("*"))).exit_code == 0
    stored = runs_of(at_once.db)
    assert stored == runs_of(by_night.db)
    assert {(name, system) for name, system, *_ in stored} == {
        *((f"{system}.{collection}", system) for system in SYSTEMS for collection in COLLECTIONS),
        *((f"BM25.{collection}.{night}", "BM25") for collection in COLLECTIONS for night in NIGHTS[1:])}
    assert (f"{nightly}/2026-03-03/BM25/trec_results_covid.txt: named BM25.covid.2026-03-03, system BM25, "
            "from its folder and file name") in result.stderr
    assert (f"2026-03-03 is a later night than {nightly}/2026-03-01/BM25/trec_results_covid.txt's, which is run "
            "BM25.covid, so the file is that night's version of it (history follows it in system BM25)") \
        in result.stderr
    again = at_once("ingest", "run", *sorted(nightly.glob("*/*")))
    assert again.exit_code == 0 and "ingested run" not in again.stderr
    assert runs_of(at_once.db) == stored


def test_nights_of_dl19_files_in_one_command_are_named_as_night_by_night(conformance, tmp_path):
    """Each night's folder holds run.dl19.BM25.txt and run.dl19.BM25_RM3.txt (no folder per system);
    a night changes one of them. The unchanged one is an earlier night's run, and the changed one,
    alone then, was named run.dl19.BM25 in a system of its own (a regression walk); the first night's
    were named BM25.2026-01-05 where that night alone is BM25."""
    runs = conformance / "dl19-passage" / "runs"
    nights = ("2026-01-05", "2026-01-06", "2026-01-07")
    for night in nights:
        (tmp_path / "flat" / night).mkdir(parents=True)
        for system in ("BM25", "BM25_RM3"):
            lines = (runs / f"run.dl19.{system}.txt").read_text().splitlines(True)
            cut = {("2026-01-06", "BM25"): slice(0, -1), ("2026-01-07", "BM25"): slice(0, -2),
                   ("2026-01-07", "BM25_RM3"): slice(1, None)}.get((night, system), slice(None))
            kept = lines[cut]
            (tmp_path / "flat" / night / f"run.dl19.{system}.txt").write_text("".join(kept))
    at_once, by_night = Cli(tmp_path / "at_once.duckdb"), Cli(tmp_path / "by_night.duckdb")
    assert at_once("ingest", "run", *(tmp_path / "flat" / night for night in nights)).exit_code == 0
    for night in nights:
        assert by_night("ingest", "run", tmp_path / "flat" / night).exit_code == 0
    assert runs_of(at_once.db) == runs_of(by_night.db)
    assert {(name, system) for name, system, *_ in runs_of(at_once.db)} == {
        ("BM25", "BM25"), ("BM25_RM3", "BM25_RM3"), ("BM25.2026-01-06", "BM25"), ("BM25.2026-01-07", "BM25"),
        ("BM25_RM3.2026-01-07", "BM25_RM3")}
