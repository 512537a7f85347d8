"""Runs kept a folder per night (2026-01-05/BM25.txt, 2026-02-02/BM25.txt ...), as a nightly job
writes them (a user's walk, a year of nightly runs): the second night's files were named
`2026-02-02.BM25` in system `2026-02-02` (the folder taken for a system, as `runs/BM25/` is), so
history tested BM25 against BM25_RM3 of the same night as versions of one system. A folder named
by a date is a night: its files name the systems (`BM25.2026-02-02`, system `BM25`), and the date
is the runs' date unless --date or ir_metadata gives one."""
from __future__ import annotations

import datetime as dt
import json
import os
import shlex
from pathlib import Path

import pytest

import warehouse

from conftest import Cli

SYSTEMS = ("BM25", "BM25_RM3")
EXPECTED_MAP = {"BM25": "0.0734", "BM25_RM3": "0.0820"}  # multi-collection/expected/covid.*.all_trec.q.v9.txt


def _night(root: Path, conformance: Path, folder: str, swap: int) -> Path:
    """A night's folder holding each system's TREC-COVID run as BM25.txt ...; swap (above 0): the
    documents of lines swap and swap + 1 exchanged (a later version with other scores)."""
    night = root / folder
    night.mkdir()
    for system in SYSTEMS:
        lines = (conformance / "multi-collection" / "runs" / system / "trec_results_covid.txt").read_text().splitlines(True)
        if swap:
            upper, lower = lines[swap].split(), lines[swap + 1].split()
            upper[2], lower[2] = lower[2], upper[2]
            lines[swap], lines[swap + 1] = " ".join(upper) + "\n", " ".join(lower) + "\n"
        (night / f"{system}.txt").write_text("".join(lines))
    return night


@pytest.fixture
def covid(irw, conformance):
    result = irw("ingest", "qrels", conformance / "multi-collection" / "qrels" / "qrels.beir-v1.0.0-trec-covid.test.txt",
                 "--name", "covid")
    assert result.exit_code == 0, result.output
    return irw


def _runs(irw) -> dict[str, dict]:
    result = irw("runs", "--format", "json")
    assert result.exit_code == 0, result.output
    return {row["name"]: row for row in json.loads(result.stdout)}


def test_a_night_s_folder_ingested_after_another_is_named_by_its_files_and_dated_by_the_folder(covid, conformance,
                                                                                             tmp_path):
    first = _night(tmp_path, conformance, "2026-01-05", swap=0)
    second = _night(tmp_path, conformance, "2026-02-02", swap=1)
    assert covid("ingest", "run", first).exit_code == 0
    result = covid("ingest", "run", second)
    assert result.exit_code == 0, result.output
    assert (f"{second / 'BM25.txt'}: named BM25.2026-02-02, system BM25, from its file name and folder" in result.stderr
            and "2026-02-02 is a date, so the folder holds one night's runs and the file names the system" in result.stderr)
    runs = _runs(covid)
    assert {name: (row["system"], row["date"][:10], row["date_source"]) for name, row in runs.items()} == {
        "BM25": ("BM25", "2026-01-05", "folder name"), "BM25_RM3": ("BM25_RM3", "2026-01-05", "folder name"),
        "BM25.2026-02-02": ("BM25", "2026-02-02", "folder name"),
        "BM25_RM3.2026-02-02": ("BM25_RM3", "2026-02-02", "folder name")}
    # history follows each system night by night, never one system's run to another's
    history = covid("report", "history", "--qrels", "covid", "-m", "AP", "--format", "json")
    assert history.exit_code == 0, history.output
    rows = json.loads(history.stdout)
    assert [(row["system"], row["run"], row["previous"]) for row in rows] == [
        ("BM25", "BM25", None), ("BM25", "BM25.2026-02-02", "BM25"),
        ("BM25_RM3", "BM25_RM3", None), ("BM25_RM3", "BM25_RM3.2026-02-02", "BM25_RM3")]
    # the first night's runs are the publisher's files: trec_eval's numbers
    assert {row["run"]: f"{row['AP']:.4f}" for row in rows if row["run"] in SYSTEMS} == EXPECTED_MAP


def test_nights_ingested_in_one_command_are_each_system_s_versions(covid, conformance, tmp_path):
    nights = [_night(tmp_path, conformance, folder, swap=number)
              for number, folder in enumerate(("20260105", "2026_02_02", "2026-03-02T0300"))]
    result = covid("ingest", "run", *nights)
    assert result.exit_code == 0, result.output
    runs = _runs(covid)
    # as the nights one by one name them: the first night's runs keep the systems' names (they were
    # BM25.20260105 ... here, where `irw ingest run 20260105/` alone stores BM25: a regression walk)
    assert {name: (row["system"], row["date"]) for name, row in runs.items()} == {
        **{system: (system, "2026-01-05T00:00:00") for system in SYSTEMS},
        **{f"{system}.{folder}": (system, date) for system in SYSTEMS for folder, date in (
            ("2026_02_02", "2026-02-02T00:00:00"), ("2026-03-02T0300", "2026-03-02T03:00:00"))}}
    one_by_one = Cli(tmp_path / "one_by_one.duckdb")
    assert one_by_one("ingest", "qrels", conformance / "multi-collection" / "qrels" /
                      "qrels.beir-v1.0.0-trec-covid.test.txt", "--name", "covid").exit_code == 0
    for night in nights:
        assert one_by_one("ingest", "run", night).exit_code == 0
    assert {name: (row["system"], row["date"]) for name, row in _runs(one_by_one).items()} == \
        {name: (row["system"], row["date"]) for name, row in runs.items()}


def test_a_date_given_or_in_the_header_comes_before_the_folder_s(covid, conformance, tmp_path):
    night = _night(tmp_path, conformance, "2026-01-05", swap=0)
    header = night / "BM25.txt"
    header.write_text("# ir_metadata.start\n# date: 2025-12-31\n# ir_metadata.end\n" + header.read_text())
    assert covid("ingest", "run", night).exit_code == 0
    runs = _runs(covid)
    assert (runs["BM25"]["date"][:10], runs["BM25"]["date_source"]) == ("2025-12-31", "ir_metadata")
    assert (runs["BM25_RM3"]["date"][:10], runs["BM25_RM3"]["date_source"]) == ("2026-01-05", "folder name")
    later = _night(tmp_path, conformance, "2026-02-02", swap=1)
    assert covid("ingest", "run", later, "--date", "2026-02-03").exit_code == 0
    runs = _runs(covid)
    assert (runs["BM25.2026-02-02"]["date"][:10], runs["BM25.2026-02-02"]["date_source"]) == ("2026-02-03", "--date")


def test_a_folder_per_system_still_names_the_system(covid, conformance, tmp_path):
    """What the date rule must not change: runs/BM25/trec_results_covid.txt beside
    runs/BM25_RM3/trec_results_covid.txt (the publisher's layout) are two systems' runs."""
    files = [conformance / "multi-collection" / "runs" / system / "trec_results_covid.txt" for system in SYSTEMS]
    result = covid("ingest", "run", *files)
    assert result.exit_code == 0, result.output
    runs = _runs(covid)
    assert {name: (row["system"], row["date_source"]) for name, row in runs.items()} == {
        f"{system}.trec_results_covid": (system, "file mtime") for system in SYSTEMS}


@pytest.mark.parametrize("folder,night", [
    ("2026-02-02", dt.datetime(2026, 2, 2)), ("20260202", dt.datetime(2026, 2, 2)),
    ("2026_02_02", dt.datetime(2026, 2, 2)), ("2026.02.02", dt.datetime(2026, 2, 2)),
    ("2026-02-02T0300", dt.datetime(2026, 2, 2, 3)), ("2026-02-02_03-15-09", dt.datetime(2026, 2, 2, 3, 15, 9)),
    ("2026-02-02T03:15Z", dt.datetime(2026, 2, 2, 3, 15)),
    ("2026-13-01", None), ("2026-02-30", None), ("2026-02", None), ("2026-0202", None), ("v2", None),
    ("BM25", None), ("2026-02-02-bm25", None), ("2026-02-02T25", None), ("covid", None)])
def test_which_folder_names_are_nights(folder, night):
    from warehouse.ingestion.files import night_of

    assert night_of(folder) == night


def test_a_name_another_collection_s_run_holds_is_refused_with_another_name_first(covid, conformance, tmp_path):
    """(The walk) a DL19 night's BM25 given the name of TREC-COVID's run of that night was told to pass
    --replace, which stored it in place of the COVID run, whose scores went with it: the run of that
    name answers other queries, so another name is the way out offered, and --replace is said for what
    it does."""
    covid_run = conformance / "multi-collection" / "runs" / "BM25" / "trec_results_covid.txt"
    dl19_run = conformance / "dl19-passage" / "runs" / "run.dl19.BM25.txt"
    assert covid("ingest", "run", covid_run, "--name", "BM25.2026-06-01").exit_code == 0
    refused = covid("ingest", "run", dl19_run, "--name", "BM25.2026-06-01")
    assert refused.exit_code == 1
    assert refused.stderr == (
        f"Error: {dl19_run}: run BM25.2026-06-01 already exists and answers other queries (it shares 0 of this "
        "file's 43: another collection's run, it seems); give it another name with --name; `--replace` would "
        "replace that run and drop every score computed from it\n")
    assert _runs(covid)["BM25.2026-06-01"]["queries"] == 50



@pytest.mark.parametrize("changed", [("BM25",), ("BM25", "BM25_RM3")])
def test_a_night_kept_a_folder_per_system_dates_its_runs_and_names_their_next_versions(covid, conformance, tmp_path,
                                                                                       changed):
    """nightly/2026-03-02/BM25/trec_results_covid.txt was dated by its file's modification time (its
    folder, BM25, is no date), and the next night's new version of BM25's run alone was stored as
    `trec_results_covid` in a system of that name (both changed: refused, offered a name of the day
    it was read). The folder above a run's folder dates it, and names its next version."""
    for night in ("2026-03-02", "2026-03-09"):
        for system in SYSTEMS:
            lines = (conformance / "multi-collection" / "runs" / system / "trec_results_covid.txt").read_text()
            lines = lines.splitlines(True)
            if night == "2026-03-09" and system in changed:
                upper, lower = lines[1].split(), lines[2].split()
                upper[2], lower[2] = lower[2], upper[2]
                lines[1], lines[2] = " ".join(upper) + "\n", " ".join(lower) + "\n"
            folder = tmp_path / "nightly" / night / system
            folder.mkdir(parents=True)
            (folder / "trec_results_covid.txt").write_text("".join(lines))
    for night in ("2026-03-02", "2026-03-09"):
        result = covid("ingest", "run", *sorted((tmp_path / "nightly" / night).iterdir()))
        assert result.exit_code == 0, result.output
    assert (f"{tmp_path}/nightly/2026-03-09/BM25/trec_results_covid.txt: named BM25.trec_results_covid.2026-03-09, "
            "system BM25") in result.stderr
    assert ("the folder above, 2026-03-09, is a date, so the file is that night's version of run "
            "BM25.trec_results_covid (history follows it in system BM25)") in result.stderr
    expected = {f"{system}.trec_results_covid": (system, "2026-03-02", "folder name") for system in SYSTEMS}
    expected.update({f"{system}.trec_results_covid.2026-03-09": (system, "2026-03-09", "folder name")
                     for system in changed})
    assert {name: (row["system"], row["date"][:10], row["date_source"]) for name, row in _runs(covid).items()} == \
        expected


def test_one_system_s_nights_given_night_by_night_are_its_versions_and_a_rerun_is_numbered(covid, conformance,
                                                                                          tmp_path):
    """One system kept a folder inside each night (nightly/2026-01-19/BM25/trec_results_covid.txt),
    ingested night by night: the second night was named trec_results_covid.BM25 (the clash rule's
    {file}.{folder}) where it is the first night's version, trec_results_covid.2026-01-20. A re-run
    of a stored night (rerun/2026-01-20/BM25/..., other bytes) was offered `--name
    ....2026-01-20.2026-01-20`, a name every page then showed (a walk of 40 nights): it is the night's
    next number, `.2`, as the docs say, and the command works as printed."""
    source = (conformance / "multi-collection" / "runs" / "BM25" / "trec_results_covid.txt").read_text()
    lines = source.splitlines(True)
    for night, text in (("2026-01-19", source), ("2026-01-20", "".join(lines[1:]))):
        (tmp_path / "nightly" / night / "BM25").mkdir(parents=True)
        (tmp_path / "nightly" / night / "BM25" / "trec_results_covid.txt").write_text(text)
        assert covid("ingest", "run", tmp_path / "nightly" / night / "BM25").exit_code == 0
    assert {name: (row["system"], row["date"][:10]) for name, row in _runs(covid).items()} == {
        "trec_results_covid": ("trec_results_covid", "2026-01-19"),
        "trec_results_covid.2026-01-20": ("trec_results_covid", "2026-01-20")}

    def rerun(night: str, skip: int, offered: str) -> None:
        """A re-run of a stored night, other bytes: refused, offered a name; the command works."""
        folder = tmp_path / "rerun" / night / "BM25"
        folder.mkdir(parents=True)
        (folder / "trec_results_covid.txt").write_text("".join(lines[skip:]))
        refused = covid("ingest", "run", folder)
        assert refused.exit_code == 1
        (command,) = [part for part in refused.stderr.replace("\n", " ").split("`") if part.startswith("irw ingest run ")]
        assert command == (f"irw ingest run {folder / 'trec_results_covid.txt'} --name {offered} "
                           "--system trec_results_covid")
        stored = covid(*shlex.split(command)[1:])
        assert stored.exit_code == 0, stored.stderr
        assert _runs(covid)[offered]["date"][:10] == night

    rerun("2026-01-20", 2, "trec_results_covid.2026-01-20.2")
    # a re-run of the first night is refused alike (it was stored unsaid as trec_results_covid.2026-01-19
    # beside that night's run, trec_results_covid: a regression walk), offered that night's name
    rerun("2026-01-19", 3, "trec_results_covid.2026-01-19")


def test_nights_after_runs_dated_by_their_copies_say_which_date_history_takes_and_how_to_fix_it(covid, conformance,
                                                                                                tmp_path):
    """A walk copied the published runs in first (runs/BM25/..., dated by their files' modification
    time, months after), then the system's nights: history and the systems table took the copies as
    each system's latest run, and nothing said so; the night holding the copy's bytes said "nothing
    to do" and left the copy's date. Each is said, with the `irw edit run` that dates it."""
    for system in SYSTEMS:
        (tmp_path / "runs" / system).mkdir(parents=True)
        copy = tmp_path / "runs" / system / "trec_results_covid.txt"
        copy.write_text((conformance / "multi-collection" / "runs" / system / "trec_results_covid.txt").read_text())
        stamp = dt.datetime(2026, 6, 1, 9, 0, tzinfo=dt.timezone.utc).timestamp()
        os.utime(copy, (stamp, stamp))
    assert covid("ingest", "run", *sorted((tmp_path / "runs").iterdir())).exit_code == 0
    lines = (tmp_path / "runs" / "BM25" / "trec_results_covid.txt").read_text().splitlines(True)
    nights = {"2026-01-05": "".join(lines), "2026-01-06": "".join(lines[1:]), "2026-01-07": "".join(lines[2:])}
    for night, text in nights.items():
        (tmp_path / "nightly" / night / "BM25").mkdir(parents=True)
        (tmp_path / "nightly" / night / "BM25" / "trec_results_covid.txt").write_text(text)

    changed = covid("ingest", "run", tmp_path / "nightly" / "2026-01-06" / "BM25")
    assert changed.exit_code == 0, changed.stderr
    assert (f"{tmp_path}/nightly/2026-01-06/BM25/trec_results_covid.txt: run BM25.trec_results_covid.2026-01-06 is "
            "dated 2026-01-06 (from its folder's name), but run BM25.trec_results_covid of system BM25 is dated "
            "2026-06-01 by its file's modification time: history and the systems table take BM25.trec_results_covid "
            "as the system's latest run; `irw edit run --date DATE BM25.trec_results_covid` dates it"
            ) in changed.stderr.splitlines(), changed.stderr

    same = covid("ingest", "run", tmp_path / "nightly" / "2026-01-05" / "BM25")
    assert same.exit_code == 0, same.stderr
    said = same.stderr.splitlines()[-1]
    assert said == (f"{tmp_path}/nightly/2026-01-05/BM25/trec_results_covid.txt: run BM25.trec_results_covid is dated "
                    "2026-06-01 09:00:00 (from file mtime), not 2026-01-05 00:00:00 (from folder name): `irw edit run "
                    "--date 2026-01-05T00:00:00 BM25.trec_results_covid` dates it so (its scores stay)")
    edited = covid(*shlex.split(said.split("`")[1])[1:])
    assert edited.exit_code == 0, edited.stderr
    assert _runs(covid)["BM25.trec_results_covid"]["date"][:10] == "2026-01-05"

    later = covid("ingest", "run", tmp_path / "nightly" / "2026-01-07" / "BM25")
    assert later.exit_code == 0 and "modification time" not in later.stderr, later.stderr
    # BM25_RM3's copy is of another system: never named in BM25's notes
    assert "BM25_RM3" not in changed.stderr + same.stderr + later.stderr


def test_a_collection_alone_on_some_nights_keeps_the_night_in_every_later_name(three_collections, conformance,
                                                                              tmp_path):
    """nights/DATE/covid/BM25.txt alone on the first two nights, news/BM25.txt alone on the third,
    both on the fourth: the fourth night's covid file was named BM25.covid (the clash rule beside
    news/BM25.txt, the name free), a name that reads as the first covid run (a regression walk).
    Every night after the first holds its night in its name, all in system BM25."""
    irw = three_collections
    runs = conformance / "multi-collection" / "runs" / "BM25"
    for night, collection, skip in (("2026-12-01", "covid", 0), ("2026-12-02", "covid", 2), ("2026-12-03", "news", 0),
                                    ("2026-12-04", "news", 3), ("2026-12-04", "covid", 4)):
        (tmp_path / "nights" / night / collection).mkdir(parents=True, exist_ok=True)
        lines = (runs / f"trec_results_{collection}.txt").read_text().splitlines(True)
        (tmp_path / "nights" / night / collection / "BM25.txt").write_text("".join(lines[skip:]))
    for night in sorted((tmp_path / "nights").iterdir()):
        result = irw("ingest", "run", *sorted(night.iterdir()))
        assert result.exit_code == 0, result.stderr
    assert {name: (row["system"], row["date"][:10]) for name, row in _runs(irw).items()} == {
        "BM25": ("BM25", "2026-12-01"), "BM25.2026-12-02": ("BM25", "2026-12-02"),
        "BM25.news": ("BM25", "2026-12-03"), "BM25.2026-12-04": ("BM25", "2026-12-04"),
        "BM25.news.2026-12-04": ("BM25", "2026-12-04")}


def test_a_system_s_changed_night_file_beside_another_system_s_file_of_its_name_keeps_the_night(three_collections,
                                                                                               conformance, tmp_path):
    """n3/2026-02-01/BM25/ (covid and news: BM25.covid, BM25.news), then n3/2026-02-02/BM25/ holding a
    changed trec_results_covid.txt beside BM25_RM3/trec_results_covid.txt: BM25's was named
    BM25.trec_results_covid, a name of neither its first night nor this one (a regression walk). It is
    BM25.covid's version of the night; BM25_RM3's, new, is named by its folder."""
    irw = three_collections
    runs = conformance / "multi-collection" / "runs"
    first, second = tmp_path / "n3" / "2026-02-01", tmp_path / "n3" / "2026-02-02"
    (first / "BM25").mkdir(parents=True)
    for collection in ("covid", "news"):
        (first / "BM25" / f"trec_results_{collection}.txt").write_text((runs / "BM25" / f"trec_results_{collection}.txt").read_text())
    for system in ("BM25", "BM25_RM3"):
        (second / system).mkdir(parents=True)
    lines = (runs / "BM25" / "trec_results_covid.txt").read_text().splitlines(True)
    (second / "BM25" / "trec_results_covid.txt").write_text("".join(lines[:4000]))
    (second / "BM25_RM3" / "trec_results_covid.txt").write_text((runs / "BM25_RM3" / "trec_results_covid.txt").read_text())
    for night in (first, second):
        result = irw("ingest", "run", *sorted(night.iterdir()))
        assert result.exit_code == 0, result.stderr
    assert {name: (row["system"], row["date"][:10]) for name, row in _runs(irw).items()} == {
        "BM25.covid": ("BM25", "2026-02-01"), "BM25.news": ("BM25", "2026-02-01"),
        "BM25.covid.2026-02-02": ("BM25", "2026-02-02"), "BM25_RM3.trec_results_covid": ("BM25_RM3", "2026-02-02")}


def test_a_new_version_in_a_folder_of_the_same_name_is_refused_not_stored_under_its_file_name(covid, conformance,
                                                                                             tmp_path):
    """runs/BM25/trec_results_covid.txt stored (beside BM25_RM3's) as BM25.trec_results_covid, then
    later/BM25/trec_results_covid.txt of other bytes alone: it was stored as trec_results_covid, in a
    system trec_results_covid; it is that run's new version, refused as one with the command that
    stores it beside it."""
    for system in SYSTEMS:
        (tmp_path / "runs" / system).mkdir(parents=True)
        (tmp_path / "runs" / system / "trec_results_covid.txt").write_text(
            (conformance / "multi-collection" / "runs" / system / "trec_results_covid.txt").read_text())
    assert covid("ingest", "run", *sorted((tmp_path / "runs").iterdir())).exit_code == 0
    lines = (tmp_path / "runs" / "BM25" / "trec_results_covid.txt").read_text().splitlines(True)
    upper, lower = lines[1].split(), lines[2].split()
    upper[2], lower[2] = lower[2], upper[2]
    lines[1], lines[2] = " ".join(upper) + "\n", " ".join(lower) + "\n"
    (tmp_path / "later" / "BM25").mkdir(parents=True)
    (tmp_path / "later" / "BM25" / "trec_results_covid.txt").write_text("".join(lines))
    refused = covid("ingest", "run", tmp_path / "later" / "BM25")
    assert refused.exit_code == 1
    assert "run BM25.trec_results_covid already exists with different content" in refused.stderr, refused.stderr
    assert "--name BM25.trec_results_covid." in refused.stderr and "--system BM25`" in refused.stderr
    assert set(_runs(covid)) == {"BM25.trec_results_covid", "BM25_RM3.trec_results_covid"}


def test_a_run_stored_under_a_name_of_its_own_has_its_next_night_named_after_it(covid, conformance, tmp_path):
    """BM25's TREC-COVID run stored as BM25.covid (--name, --system) from runs/BM25/, then a night's
    folder per system whose BM25 file changed: it was stored as trec_results_covid, in a system of
    that name, as no stored run held a name the rule gives it; it is BM25.covid's version of the
    night (a walk of a fresh install)."""
    multi = conformance / "multi-collection" / "runs"
    for system in SYSTEMS:
        assert covid("ingest", "run", multi / system / "trec_results_covid.txt", "--name", f"{system}.covid",
                     "--system", system).exit_code == 0
        lines = (multi / system / "trec_results_covid.txt").read_text().splitlines(True)
        if system == "BM25":
            upper, lower = lines[1].split(), lines[2].split()
            upper[2], lower[2] = lower[2], upper[2]
            lines[1], lines[2] = " ".join(upper) + "\n", " ".join(lower) + "\n"
        (tmp_path / "2026-03-09" / system).mkdir(parents=True)
        (tmp_path / "2026-03-09" / system / "trec_results_covid.txt").write_text("".join(lines))
    result = covid("ingest", "run", *sorted((tmp_path / "2026-03-09").iterdir()))
    assert result.exit_code == 0, result.output
    assert ("named BM25.covid.2026-03-09, system BM25: its tag rank is a placeholder, not a name, and run "
            "BM25.covid, read before from a file trec_results_covid.txt in a folder BM25, answers the same queries "
            "(an earlier version of this file)") in result.stderr, result.stderr
    runs = _runs(covid)
    assert set(runs) == {"BM25.covid", "BM25_RM3.covid", "BM25.covid.2026-03-09"}
    assert (runs["BM25.covid.2026-03-09"]["system"], runs["BM25.covid.2026-03-09"]["date"][:10]) == \
        ("BM25", "2026-03-09")


# -- a night kept a folder per collection ---------------------------------------------------------
MULTI_QRELS = {"dl21": "qrels.dl21-passage.txt", "news": "qrels.beir-v1.0.0-trec-news.test.txt"}


def _swapped(text: str, at: int = 1) -> str:
    """The run with the documents of lines at and at + 1 exchanged: a later version, other scores."""
    lines = text.splitlines(True)
    upper, lower = lines[at].split(), lines[at + 1].split()
    upper[2], lower[2] = lower[2], upper[2]
    lines[at], lines[at + 1] = " ".join(upper) + "\n", " ".join(lower) + "\n"
    return "".join(lines)


def _collection_nights(root: Path, conformance: Path, changes: dict[str, set[tuple[str, str]]]) -> None:
    """nights/NIGHT/COLLECTION/SYSTEM.txt for each night of changes (in order), each file the
    publisher's run, or, for a (collection, system) the night changes, that run with two documents
    exchanged (one exchange per night it changed, so every changed night's bytes differ)."""
    multi = conformance / "multi-collection" / "runs"
    times: dict[tuple[str, str], int] = {}
    for night, changed in changes.items():
        for collection in ("covid", "dl21", "news"):
            folder = root / "nights" / night / collection
            folder.mkdir(parents=True)
            for system in SYSTEMS:
                text = (multi / system / f"trec_results_{collection}.txt").read_text()
                if (collection, system) in changed:
                    times[(collection, system)] = times.get((collection, system), 0) + 1
                for at in range(times.get((collection, system), 0)):
                    text = _swapped(text, 1 + 2 * at)
                (folder / f"{system}.txt").write_text(text)


@pytest.fixture
def three_collections(covid, conformance):
    for name, file in MULTI_QRELS.items():
        assert covid("ingest", "qrels", conformance / "multi-collection" / "qrels" / file, "--name", name).exit_code == 0
    return covid


def test_a_night_kept_a_folder_per_collection_names_each_changed_run_after_its_first_night(three_collections,
                                                                                          conformance, tmp_path):
    """(A walk of a team's warehouse) nights/2026-11-01/{covid,dl21,news}/BM25.txt ... stored as
    BM25.covid, BM25.dl21 ...; the next night, whose covid/BM25.txt alone changed, stored it as
    `BM25`, a name of no collection and no night; the night after, whose dl21/BM25.txt changed, was
    refused whole (`run BM25.dl21 already exists with different content`); and a night changing two
    collections' files of one system was refused too. Each changed file is its first night's run's
    version of the night, in its system, dated by the night."""
    irw = three_collections
    _collection_nights(tmp_path, conformance, {"2026-11-01": set(), "2026-11-02": {("covid", "BM25")},
                                               "2026-11-03": {("dl21", "BM25")},
                                               "2026-11-04": {("covid", "BM25_RM3"), ("news", "BM25_RM3")}})
    for night in ("2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04"):
        result = irw("ingest", "run", *sorted((tmp_path / "nights" / night).iterdir()))
        assert result.exit_code == 0, (night, result.stderr)
    runs = _runs(irw)
    first = {f"{system}.{collection}": (system, "2026-11-01") for system in SYSTEMS
             for collection in ("covid", "dl21", "news")}
    later = {"BM25.covid.2026-11-02": ("BM25", "2026-11-02"), "BM25.dl21.2026-11-03": ("BM25", "2026-11-03"),
             "BM25_RM3.covid.2026-11-04": ("BM25_RM3", "2026-11-04"),
             "BM25_RM3.news.2026-11-04": ("BM25_RM3", "2026-11-04")}
    assert {name: (row["system"], row["date"][:10]) for name, row in runs.items()} == {**first, **later}
    # each night's version is judged by its collection's qrels alone
    assert runs["BM25.covid.2026-11-02"]["judged_by"] == "covid 50/50"
    assert runs["BM25_RM3.news.2026-11-04"]["judged_by"] == "news 57/57"
    # its page says which of the night's BM25.txt it was read from (each collection's folder holds one)
    page = tmp_path / "page.html"
    result = irw("report", "run", "BM25.covid.2026-11-02", "--qrels", "covid", "-m", "AP", "-o", page)
    assert result.exit_code == 0, result.stderr
    # and of which night: every night holds a covid/BM25.txt (the page said covid/BM25.txt of each)
    assert "<dt>Source file</dt><dd>2026-11-02/covid/BM25.txt</dd>" in page.read_text(encoding="utf-8")


def test_a_changed_run_s_night_note_says_whose_version_it_is(three_collections, conformance, tmp_path):
    irw = three_collections
    _collection_nights(tmp_path, conformance, {"2026-11-01": set(), "2026-11-02": {("covid", "BM25")}})
    assert irw("ingest", "run", *sorted((tmp_path / "nights" / "2026-11-01").iterdir())).exit_code == 0
    result = irw("ingest", "run", *sorted((tmp_path / "nights" / "2026-11-02").iterdir()))
    assert result.exit_code == 0, result.stderr
    note = next(line for line in result.stderr.splitlines() if line.startswith(f"{tmp_path}/nights/2026-11-02/covid/BM25.txt:"))
    assert note.startswith(f"{tmp_path}/nights/2026-11-02/covid/BM25.txt: named BM25.covid.2026-11-02, system BM25"), note
    assert "the folder above, 2026-11-02, is a date, so the file is that night's version of run BM25.covid" in note


def test_a_night_kept_a_folder_per_system_of_several_collections_names_its_changed_runs(covid, conformance, tmp_path):
    """nightly/NIGHT/BM25/trec_results_{covid,news}.txt: the folder's files answer different queries
    (it names the system), and the next night's changed covid file was refused; it is
    BM25.covid.NIGHT."""
    multi = conformance / "multi-collection" / "runs"
    assert covid("ingest", "qrels", conformance / "multi-collection" / "qrels" / MULTI_QRELS["news"],
                 "--name", "news").exit_code == 0
    for night in ("2026-03-02", "2026-03-09"):
        for system in SYSTEMS:
            folder = tmp_path / "nightly" / night / system
            folder.mkdir(parents=True)
            for collection in ("covid", "news"):
                text = (multi / system / f"trec_results_{collection}.txt").read_text()
                changed = night == "2026-03-09" and (system, collection) == ("BM25", "covid")
                (folder / f"trec_results_{collection}.txt").write_text(_swapped(text) if changed else text)
    for night in ("2026-03-02", "2026-03-09"):
        result = covid("ingest", "run", *sorted((tmp_path / "nightly" / night).iterdir()))
        assert result.exit_code == 0, (night, result.stderr)
    runs = _runs(covid)
    assert set(runs) == {"BM25.covid", "BM25.news", "BM25_RM3.covid", "BM25_RM3.news", "BM25.covid.2026-03-09"}
    assert (runs["BM25.covid.2026-03-09"]["system"], runs["BM25.covid.2026-03-09"]["date"][:10]) == \
        ("BM25", "2026-03-09")


def test_a_night_that_goes_back_to_an_older_run_s_bytes_says_so_and_how_to_store_it(three_collections, conformance,
                                                                                   tmp_path):
    """(A walk of irw report systems) night 2 changed covid/BM25.txt, night 3 went back to night 1's
    bytes (a regression rolled back): night 3's file is run BM25.covid, stored already, so nothing
    was stored and nothing said, and the systems table and history took night 2's run as BM25's
    latest. The ingest now says so, with the command that stores the file as night 3's run, after
    which the table's latest is it; run again, that night says nothing more."""
    import shlex

    from warehouse import reports

    irw = three_collections
    _collection_nights(tmp_path, conformance, {"2026-11-01": set(), "2026-11-02": {("covid", "BM25")},
                                               "2026-11-03": set()})
    (tmp_path / "nights" / "2026-11-03" / "covid" / "BM25.txt").write_bytes(
        (tmp_path / "nights" / "2026-11-01" / "covid" / "BM25.txt").read_bytes())  # back to night 1's
    for night in ("2026-11-01", "2026-11-02", "2026-11-03"):
        result = irw("ingest", "run", *sorted((tmp_path / "nights" / night).iterdir()))
        assert result.exit_code == 0, (night, result.stderr)
    path = tmp_path / "nights" / "2026-11-03" / "covid" / "BM25.txt"
    (note,) = [line for line in result.stderr.splitlines() if "goes back" in line]
    command = f"irw ingest run {path} --name BM25.covid.2026-11-03 --system BM25"
    assert note == (f"{path}: these bytes are run BM25.covid's, dated 2026-11-01, but run BM25.covid.2026-11-02 of "
                    "system BM25, dated 2026-11-02, is later: this file goes back to BM25.covid's output, and the "
                    f"reports take BM25.covid.2026-11-02 as BM25's latest run; `{command}` stores it as the run of "
                    "2026-11-03")
    result = irw(*shlex.split(command)[1:])
    assert result.exit_code == 0, result.stderr
    with warehouse.open(irw.db) as wh:
        behind = {(r[0], r[1]): r[2] for r in reports.systems(wh, "AP").runs_table().rows}
    assert behind[("BM25", "covid")] == "BM25.covid.2026-11-03"
    again = irw("ingest", "run", *sorted((tmp_path / "nights" / "2026-11-03").iterdir()))
    assert again.exit_code == 0 and "goes back" not in again.stderr


def test_a_night_going_back_to_a_night_s_version_is_offered_the_system_s_name_of_its_own_night(
        three_collections, conformance, tmp_path):
    """Back to night 2's bytes (run BM25.covid.2026-11-02) on night 4: the command offered
    --name BM25.covid.2026-11-02.2026-11-04 (a regression hunt); it is BM25.covid.2026-11-04, as the
    night's own version of BM25.covid is named."""
    irw = three_collections
    _collection_nights(tmp_path, conformance, {"2026-11-01": set(), "2026-11-02": {("covid", "BM25")},
                                               "2026-11-03": {("covid", "BM25")}, "2026-11-04": set()})
    path = tmp_path / "nights" / "2026-11-04" / "covid" / "BM25.txt"
    path.write_bytes((tmp_path / "nights" / "2026-11-02" / "covid" / "BM25.txt").read_bytes())
    for night in ("2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04"):
        result = irw("ingest", "run", *sorted((tmp_path / "nights" / night).iterdir()))
        assert result.exit_code == 0, (night, result.stderr)
    (note,) = [line for line in result.stderr.splitlines() if "goes back" in line]
    assert note.startswith(f"{path}: these bytes are run BM25.covid.2026-11-02's, dated 2026-11-02, but run "
                           "BM25.covid.2026-11-03 of system BM25"), note
    assert f"`irw ingest run {path} --name BM25.covid.2026-11-04 --system BM25` stores it as the run of 2026-11-04" \
        in note, note


def test_a_night_holding_only_the_changed_file_of_a_prefixed_name_follows_its_system(covid, conformance, tmp_path):
    """Nights of run files named as published (run.covid.BM25.txt ...): a night of several files
    strips their shared prefix (BM25, BM25_RM3), but a later night holding only the file that
    changed had none to share, and its run was `run.covid.BM25`, a system of its own that history
    did not follow (a walk of four months)."""
    runs = conformance / "multi-collection" / "runs"
    first, changed, again = (tmp_path / night for night in ("2026-01-05", "2025-12-01", "2026-02-02"))
    first.mkdir()
    for system in SYSTEMS:
        (first / f"run.covid.{system}.txt").write_bytes((runs / system / "trec_results_covid.txt").read_bytes())
    lines = (runs / "BM25" / "trec_results_covid.txt").read_text().splitlines(True)
    for folder, kept in ((changed, 20), (again, 30)):  # each an earlier or later version: fewer lines
        folder.mkdir()
        (folder / "run.covid.BM25.txt").write_text("".join(line for line in lines if int(line.split()[3]) <= kept))
    assert covid("ingest", "run", first).exit_code == 0
    backfill = covid("ingest", "run", changed)  # a folder of one file
    assert backfill.exit_code == 0, backfill.output
    assert (f"{changed / 'run.covid.BM25.txt'}: named BM25.2025-12-01, system BM25: its tag rank is a placeholder, "
            "not a name, and run BM25 of system BM25, read before from a file run.covid.BM25.txt in the folder of "
            "night 2026-01-05, answers the same queries; 2025-12-01 is a date, so the file is that system's run of "
            "the night (history follows it)") in backfill.stderr.splitlines(), backfill.stderr
    assert covid("ingest", "run", again / "run.covid.BM25.txt").exit_code == 0  # the file alone, named by path
    stored = {name: (row["system"], row["date"][:10]) for name, row in _runs(covid).items()}
    assert stored == {"BM25": ("BM25", "2026-01-05"), "BM25_RM3": ("BM25_RM3", "2026-01-05"),
                      "BM25.2025-12-01": ("BM25", "2025-12-01"), "BM25.2026-02-02": ("BM25", "2026-02-02")}
    history = covid("report", "history", "--system", "BM25", "-m", "AP", "--format", "json")
    assert history.exit_code == 0, history.stderr
    assert [row["run"] for row in json.loads(history.stdout)] == ["BM25.2025-12-01", "BM25", "BM25.2026-02-02"]
    # a new file alone in a night, of no earlier night, keeps the file rule's name
    new = tmp_path / "2026-03-01"
    new.mkdir()
    (new / "run.covid.SPLADE.txt").write_bytes((runs / "SPLADE_P_P_ENSEMBLE_DISTIL" / "trec_results_covid.txt").read_bytes())
    assert covid("ingest", "run", new).exit_code == 0
    assert _runs(covid)["run.covid.SPLADE"]["system"] == "run.covid.SPLADE"


def test_the_rollback_command_carries_the_batch_s_description_and_parameters(three_collections, conformance,
                                                                             tmp_path):
    """The command the rollback note gives stored the night's run without the description and
    parameters its batch gave, which the night's other runs have (a walk of four months)."""
    import shlex

    irw = three_collections
    _collection_nights(tmp_path, conformance, {"2026-11-01": set(), "2026-11-02": {("covid", "BM25")},
                                               "2026-11-03": set()})
    (tmp_path / "nights" / "2026-11-03" / "covid" / "BM25.txt").write_bytes(
        (tmp_path / "nights" / "2026-11-01" / "covid" / "BM25.txt").read_bytes())
    for night in ("2026-11-01", "2026-11-02", "2026-11-03"):
        result = irw("ingest", "run", *sorted((tmp_path / "nights" / night).iterdir()), "--description",
                     "nightly sweep", "--param", "index=v1", "--param", "k1=0.9")
        assert result.exit_code == 0, (night, result.stderr)
    (note,) = [line for line in result.stderr.splitlines() if "goes back" in line]
    command = note.split("`")[1]
    assert command.endswith(" --system BM25 --description 'nightly sweep' --param index=v1 --param k1=0.9"), command
    assert irw(*shlex.split(command)[1:]).exit_code == 0
    stored = _runs(irw)["BM25.covid.2026-11-03"]
    assert (stored["description"], stored["parameters"]) == ("nightly sweep", {"index": "v1", "k1": "0.9"}), stored


def test_a_night_holding_only_the_changed_file_after_a_folder_of_no_date_follows_its_system(covid, conformance,
                                                                                             tmp_path):
    """A walk ingested a collection's runs from `runs/` as the README does (run.dl19.BM25.txt ...: BM25
    ...), then a night's folder holding only the file that changed: its run was `run.dl19.BM25`, a
    system of its own that history did not follow."""
    published = conformance / "multi-collection" / "runs"
    folder = tmp_path / "runs"
    folder.mkdir()
    for system in SYSTEMS:
        (folder / f"run.covid.{system}.txt").write_bytes((published / system / "trec_results_covid.txt").read_bytes())
    assert covid("ingest", "run", folder).exit_code == 0
    night = tmp_path / "nightly" / "2026-01-15"
    night.mkdir(parents=True)
    lines = (published / "BM25" / "trec_results_covid.txt").read_text().splitlines(True)
    (night / "run.covid.BM25.txt").write_text("".join(line for line in lines if int(line.split()[3]) <= 50))
    result = covid("ingest", "run", night)
    assert result.exit_code == 0, result.output
    assert (f"{night / 'run.covid.BM25.txt'}: named BM25.2026-01-15, system BM25: its tag rank is a placeholder, not "
            "a name, and run BM25 of system BM25, read before from a file run.covid.BM25.txt in runs/, answers the "
            "same queries; 2026-01-15 is a date, so the file is that system's run of the night (history follows it)"
            ) in result.stderr.splitlines(), result.stderr
    runs = _runs(covid)
    assert (runs["BM25.2026-01-15"]["system"], runs["BM25.2026-01-15"]["date"][:10]) == ("BM25", "2026-01-15")
    history = covid("report", "history", "--system", "BM25", "-m", "AP", "--format", "json")
    assert [row["run"] for row in json.loads(history.stdout)] == ["BM25.2026-01-15", "BM25"]


def test_a_night_s_lone_file_whose_name_several_systems_were_read_from_names_no_system(covid, conformance, tmp_path):
    """runs/BM25/trec_results_covid.txt and runs/BM25_RM3/trec_results_covid.txt: a night's folder
    holding a trec_results_covid.txt alone is either system's, so the file rule names it."""
    published = conformance / "multi-collection" / "runs"
    assert covid("ingest", "run", *(published / system for system in SYSTEMS)).exit_code == 0
    night = tmp_path / "2026-01-15"
    night.mkdir()
    lines = (published / "BM25" / "trec_results_covid.txt").read_text().splitlines(True)
    (night / "trec_results_covid.txt").write_text("".join(line for line in lines if int(line.split()[3]) <= 50))
    result = covid("ingest", "run", night)
    assert result.exit_code == 0, result.output
    assert _runs(covid)["trec_results_covid"]["system"] == "trec_results_covid"
