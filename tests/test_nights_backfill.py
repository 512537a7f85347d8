"""Several nights ingested in one command (`irw ingest run nightly/*/*/`, a backfill of a folder per
night and per system): every file was refused, each naming every other file of its name (a
bulk-ingest walk: 120 files, 113 KB of stderr), where the nights ingested one by one are named
{name}.{night}. Then a night's lone changed file was named by its short name (covid, where night by
night gives BM25.covid.NIGHT) and a night going back to an earlier night's bytes went unsaid. One
command now stores, and says, what the nights one by one do, and a second changes nothing."""
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
    assert ("the folder above, 2026-03-03, is a date, so the file is that night's version of run BM25.covid "
            "(history follows it in system BM25)") in result.stderr
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


def said(result) -> list[str]:
    """What a command said of each file: its stderr without the batch's count line."""
    return [line for line in result.stderr.splitlines() if not line.split(" ")[1:2] == ["files:"]]


def test_a_lone_changed_file_and_a_rollback_in_a_backfill_are_named_and_said_as_night_by_night(
        multi_collection, tmp_path):
    """Three systems' runs of two collections each night; on the second night only BM25's covid run
    changes, on the third BM25's covid run goes back to the first night's bytes and BM25_RM3's dl21
    run changes. The backfill named the second night's BM25 file `covid` (alone in its folder beside
    unchanged files, which it set aside as earlier files' bytes) and stored the rollback unsaid."""
    nights = ("2026-01-19", "2026-01-20", "2026-01-21")
    changed = {("2026-01-20", "BM25", "covid"), ("2026-01-21", "BM25_RM3", "dl21")}
    for night in nights:
        for system in ("BM25", "BM25_RM3", "SPLADE_P_P_ENSEMBLE_DISTIL"):
            (tmp_path / "nightly" / night / system).mkdir(parents=True)
            for collection in COLLECTIONS:
                text = (multi_collection / "runs" / system / f"trec_results_{collection}.txt").read_text()
                if (night, system, collection) in changed:
                    first, rest = text.split("\n", 1)
                    fields = first.split()
                    text = " ".join([*fields[:4], f"{float(fields[4]) + 0.5}", fields[5]]) + "\n" + rest
                (tmp_path / "nightly" / night / system / f"trec_results_{collection}.txt").write_text(text)
    at_once, by_night = Cli(tmp_path / "at_once.duckdb"), Cli(tmp_path / "by_night.duckdb")
    backfill = at_once("ingest", "run", *sorted((tmp_path / "nightly").glob("*/*")))
    assert backfill.exit_code == 0, backfill.stderr
    nightly_said = []
    for night in nights:
        result = by_night("ingest", "run", *sorted((tmp_path / "nightly" / night).glob("*")))
        assert result.exit_code == 0, result.stderr
        nightly_said += said(result)
    assert said(backfill) == nightly_said
    assert runs_of(at_once.db) == runs_of(by_night.db)
    assert {(name, system) for name, system, *_ in runs_of(at_once.db)} >= {
        ("BM25.covid.2026-01-20", "BM25"), ("BM25_RM3.dl21.2026-01-21", "BM25_RM3")}
    rollback = tmp_path / "nightly" / "2026-01-21" / "BM25" / "trec_results_covid.txt"
    assert any(line.startswith(f"{rollback}: these bytes are run BM25.covid's, dated 2026-01-19, but run "
                               "BM25.covid.2026-01-20 of system BM25, dated 2026-01-20, is later")
               for line in said(backfill)), backfill.stderr
    assert backfill.stderr.splitlines()[-1] == "18 files: 8 ingested, 10 unchanged"


def test_a_later_night_refused_in_a_backfill_says_which_nights_were_stored(nightly, tmp_path):
    """The nights are named one by one against what the earlier ones stored, so a later night's
    refusal (here a run of its name already stored with other bytes, from another folder) comes
    after the earlier nights are stored: the message says so, and the same command again, once
    resolved, stores the rest."""
    irw = Cli(tmp_path / "irw.duckdb")
    clash = tmp_path / "elsewhere" / "BM25.covid.2026-03-02.txt"
    clash.parent.mkdir()
    # the same queries as the night's file (one collection), other bytes than any night's
    clash.write_text("".join((nightly / "2026-03-01" / "BM25" / "trec_results_covid.txt").read_text()
                             .splitlines(True)[1:]))
    assert irw("ingest", "run", clash, "--name", "BM25.covid.2026-03-02").exit_code == 0
    result = irw("ingest", "run", *sorted(nightly.glob("*/*")))
    assert result.exit_code != 0
    assert "the nights before 2026-03-02 were stored, night by night (runs BM25.covid, BM25.dl21, BM25_RM3.covid, " \
           "BM25_RM3.dl21): the same command again, once this is resolved, stores the rest" in result.stderr, \
        result.stderr
    assert ("Error: nothing of night 2026-03-02 or later was stored (8 files): 1 of that night's 4 files cannot be "
            "ingested as they are") in result.stderr
    # what the stored night's files said is said, as night by night (a regression hunt: only the error was)
    first = nightly / "2026-03-01" / "BM25" / "trec_results_covid.txt"
    assert f"{first}: named BM25.covid, system BM25, from its folder and file name" in result.stderr
    assert result.stderr.index("ingested run BM25_RM3.dl21") < result.stderr.index("Error:")
    assert "nothing was stored" not in result.stderr
    assert irw("rename", "run", "BM25.covid.2026-03-02", "other").exit_code == 0
    again = irw("ingest", "run", *sorted(nightly.glob("*/*")))
    assert again.exit_code == 0, again.stderr
    assert {name for name, *_ in runs_of(irw.db)} >= {"BM25.covid.2026-03-02", "BM25.covid.2026-03-03"}
