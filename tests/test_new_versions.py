"""A new version of a run in a warehouse of several collections goes into the stored run's system,
so history follows it (docs/input-formats.md, "Run names and dates").

Real data: ../shared/conformance/multi-collection (skipped where absent), copied as a user keeps
it: one folder per collection (bycoll/covid/BM25.txt, bycoll/dl21/BM25.txt ...), and next
months' folders (bycoll2/covid/, bycoll3/covid/) holding the same files but for BM25, whose
scores changed. Every hint an ingest prints is run as printed: a command (`irw ...`) from the
folder it was printed in, an option added to the command that printed it.
"""
from __future__ import annotations

import csv
import io
import os
import re
import shlex
import shutil
import datetime as dt
from pathlib import Path

import pytest

import warehouse

from conftest import Cli

SYSTEMS = ("BM25", "BM25_RM3", "SPLADE_P_P_ENSEMBLE_DISTIL")
MONTHS = {"bycoll": "2026-01-01", "bycoll2": "2026-02-01", "bycoll3": "2026-03-01"}


@pytest.fixture
def multi(conformance: Path) -> Path:
    path = conformance / "multi-collection"
    if not path.is_dir():
        pytest.skip(f"{path} is absent")
    return path


def changed(text: str, every: int, delta: float) -> str:
    """The run with delta added to the score of every `every`-th line: next month's version."""
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if number % every == 0:
            fields[4] = repr(float(fields[4]) + delta)
        lines.append(" ".join(fields) + "\n")
    return "".join(lines)


def dated(path: Path, day: str) -> None:
    stamp = dt.datetime.fromisoformat(day).replace(tzinfo=dt.timezone.utc).timestamp()
    os.utime(path, (stamp, stamp))


@pytest.fixture
def layout(multi: Path, tmp_path: Path, monkeypatch) -> Path:
    """bycoll/{covid,dl21}/SYSTEM.txt; bycoll2/covid and bycoll3/covid with BM25 changed (one
    month apart, by their files' times); the working folder w/, where every command runs."""
    for month, day in MONTHS.items():
        for collection in ("covid", "dl21") if month == "bycoll" else ("covid",):
            folder = tmp_path / month / collection
            folder.mkdir(parents=True)
            for system in SYSTEMS:
                source = multi / "runs" / system / f"trec_results_{collection}.txt"
                if system == "BM25" and month != "bycoll":
                    (folder / f"{system}.txt").write_text(
                        changed(source.read_text(), 7 if month == "bycoll2" else 5, 0.5))
                else:
                    shutil.copyfile(source, folder / f"{system}.txt")
                dated(folder / f"{system}.txt", day)
    shutil.copyfile(multi / "qrels" / "qrels.beir-v1.0.0-trec-covid.test.txt", tmp_path / "qrels.covid.txt")
    (tmp_path / "w").mkdir()
    monkeypatch.chdir(tmp_path / "w")
    return tmp_path


def stored(db: Path) -> dict[str, tuple]:
    """name -> (system, sha256) of every stored run."""
    with warehouse.open(db, read_only=True) as wh:
        return {name: (system, sha) for name, system, sha in wh.sql("select name, system, sha256 from runs").rows}


def hints(stderr: str) -> list[str]:
    return [hint for line in stderr.splitlines() for hint in re.findall(r"`([^`]*)`", line)]


def run_hint(irw: Cli, hint: str, command: list[str]):
    """A hint run as printed: a command as it is, an option added to the command that printed it."""
    words = shlex.split(hint)
    return irw(*words[1:]) if words[0] == "irw" else irw(*command, *words)


def copy_of(db: Path, name: str) -> Cli:
    shutil.copyfile(db, db.parent / name)
    return Cli(db.parent / name)


@pytest.mark.parametrize("next_version", ["from a third folder", "written again in the same folder"])
def test_a_new_version_clashing_with_a_stored_run_is_offered_its_systems_next_name(layout, next_version):
    """The user's walk: both collections stored (BM25.covid, system BM25), then next month's covid
    folder, where only BM25 changed (stored as BM25, system BM25: the file rule's name is free),
    then the month after's, from a third folder or over the second one's file: its name by the
    rule, BM25.covid, is a stored run of the same queries holding other bytes. The error's
    command stores it beside that run, in system BM25, dated, and the unchanged files stay the
    runs that hold them; the folder again is then a no-op. (Before, a third folder's file was stored
    as covid.BM25, system covid, and the same folder's was an error whose --name-template hint
    gave system covid.BM25 and stored the two unchanged files again.)"""
    db = layout / "irw.duckdb"
    irw = Cli(db)
    first = irw("ingest", "run", "../bycoll/dl21/", "../bycoll/covid/")
    assert first.exit_code == 0, first.stderr
    second = irw("ingest", "run", "../bycoll2/covid/")
    assert second.exit_code == 0, second.stderr
    runs = stored(db)
    assert len(runs) == 7 and runs["BM25"][0] == runs["BM25.covid"][0] == "BM25"
    if next_version == "from a third folder":
        command = ["ingest", "run", "../bycoll3/covid/"]
    else:
        target = layout / "bycoll2" / "covid" / "BM25.txt"
        shutil.copyfile(layout / "bycoll3" / "covid" / "BM25.txt", target)
        dated(target, MONTHS["bycoll3"])
        command = ["ingest", "run", "../bycoll2/covid/"]
    path = command[-1] + "BM25.txt"
    refused = irw(*command)
    assert refused.exit_code == 1, refused.stderr
    assert refused.stderr.splitlines() == [
        f"Error: {path}: run BM25.covid already exists with different content; pass `--replace` to replace it and "
        "every score computed from it, or, as both answer the same queries (a new version of that run), store it "
        f"beside that run, in system BM25: `irw ingest run {path} --name BM25.covid.2026-03-01 --system BM25`",
        "Error: nothing was stored: 1 of 3 files cannot be ingested as they are; fix the files named above, or leave them out, and run the command again"]
    assert stored(db) == runs
    replace, version = hints(refused.stderr)
    assert replace == "--replace"  # it works too, replacing BM25.covid (no history: the user's choice)
    replaced = run_hint(copy_of(db, "replaced.duckdb"), replace, command)
    assert replaced.exit_code == 0, replaced.stderr
    assert len(stored(db.parent / "replaced.duckdb")) == 7
    done = run_hint(irw, version, command)
    assert done.exit_code == 0, done.stderr
    after = stored(db)
    assert set(after) == set(runs) | {"BM25.covid.2026-03-01"}  # the unchanged files are not stored again
    assert after["BM25.covid.2026-03-01"][0] == "BM25"
    again = irw(*command)
    assert again.exit_code == 0, again.stderr
    *lines, total = again.stderr.splitlines()  # the batch's count last
    assert all(line.endswith("nothing to do") for line in lines) and total.endswith(" unchanged"), again.stderr
    assert stored(db) == after
    # history follows system BM25 on covid: its three versions, oldest first
    assert irw("ingest", "qrels", layout / "qrels.covid.txt", "--name", "covid").exit_code == 0
    history = irw("report", "history", "--qrels", "covid", "--system", "BM25", "-m", "AP", "--format", "csv")
    assert history.exit_code == 0, history.stderr
    rows = list(csv.DictReader(io.StringIO(history.stdout)))
    assert [(row["run"], row["system"]) for row in rows] == [
        ("BM25.covid", "BM25"), ("BM25", "BM25"), ("BM25.covid.2026-03-01", "BM25")]


def test_the_version_command_carries_the_options_given_and_the_batch_again_stores_the_rest(layout, multi):
    """The month's folder holds a new system's file too, and the command gave a date and a
    description: the hint's command stores BM25's new version with them, and says to run the
    batch again, which stores the new file (nothing was stored: the batch is checked whole)."""
    db = layout / "irw.duckdb"
    irw = Cli(db)
    assert irw("ingest", "run", "../bycoll/dl21/", "../bycoll/covid/").exit_code == 0
    assert irw("ingest", "run", "../bycoll2/covid/").exit_code == 0
    (layout / "bycoll3" / "covid" / "NEW.txt").write_text(
        changed((multi / "runs" / "BM25_RM3" / "trec_results_covid.txt").read_text(), 2, 1.0))
    command = ["ingest", "run", "../bycoll3/covid/", "--date", "2026-03-15", "--description", "March run"]
    refused = irw(*command)
    assert refused.exit_code == 1
    assert refused.stderr.splitlines()[0].endswith(
        ": `irw ingest run ../bycoll3/covid/BM25.txt --name BM25.covid.2026-03-15 --system BM25 --date "
        "2026-03-15T00:00:00 --description 'March run'`, then this command again for the other files")
    version = hints(refused.stderr)[-1]
    assert run_hint(irw, version, command).exit_code == 0
    again = irw(*command)
    assert again.exit_code == 0, again.stderr
    with warehouse.open(db, read_only=True) as wh:
        rows = wh.sql("select name, system, description, file_created_at::varchar from runs "
                      "where description is not null order by name").rows
    assert rows == [("BM25.covid.2026-03-15", "BM25", "March run", "2026-03-15 00:00:00"),
                    ("NEW", "NEW", "March run", "2026-03-15 00:00:00")]


def test_a_version_name_taken_gets_the_next_free_one(layout):
    """Two versions on one day: the date alone is taken, so the name gets a number too."""
    db = layout / "irw.duckdb"
    irw = Cli(db)
    assert irw("ingest", "run", "../bycoll/dl21/", "../bycoll/covid/").exit_code == 0
    assert irw("ingest", "run", "../bycoll2/covid/").exit_code == 0
    third = layout / "bycoll3" / "covid" / "BM25.txt"
    refused = irw("ingest", "run", third)
    assert refused.exit_code == 1
    assert run_hint(irw, hints(refused.stderr)[-1], []).exit_code == 0
    third.write_text(changed(third.read_text(), 3, 0.25))
    dated(third, MONTHS["bycoll3"])
    refused = irw("ingest", "run", third)
    assert refused.exit_code == 1
    assert hints(refused.stderr)[-1] == (f"irw ingest run {third} --name BM25.covid.2026-03-01.2 --system BM25")
    assert run_hint(irw, hints(refused.stderr)[-1], []).exit_code == 0
    assert {name: system for name, (system, _) in stored(db).items() if system == "BM25"} == {
        "BM25.dl21": "BM25", "BM25.covid": "BM25", "BM25": "BM25", "BM25.covid.2026-03-01": "BM25",
        "BM25.covid.2026-03-01.2": "BM25"}


def test_a_template_keeps_files_a_stored_run_holds(layout):
    """Re-ingesting a folder under --name-template where one file changed adds that file only: the
    others are the stored runs holding their bytes (as the auto rule's rule 1 keeps them), said."""
    db = layout / "irw.duckdb"
    irw = Cli(db)
    first = irw("ingest", "run", "../bycoll/covid/", "--name-template", "{short}.{folder}", "--system", "{short}")
    assert first.exit_code == 0, first.stderr
    runs = stored(db)
    assert set(runs) == {f"{s}.covid" for s in SYSTEMS}
    second = irw("ingest", "run", "../bycoll2/covid/", "--name-template", "{short}.{folder}.2", "--system", "{short}")
    assert second.exit_code == 0, second.stderr
    after = stored(db)
    assert set(after) == set(runs) | {"BM25.covid.2"} and after["BM25.covid.2"][0] == "BM25"
    lines = second.stderr.splitlines()
    assert "ingested run BM25.covid.2: 5000 lines, 50 queries from ../bycoll2/covid/BM25.txt" in lines
    for system in SYSTEMS[1:]:
        path = f"../bycoll2/covid/{system}.txt"
        assert (f"{path}: kept as run {system}.covid, which holds these bytes: not stored again as "
                f"{system}.covid.2 (irw rename run renames a run)") in lines
    # the same bytes twice in a batch are one run under a template too (as they were)
    assert irw("ingest", "run", "../bycoll/covid/", "../bycoll2/covid/", "--name-template", "{folder}-{short}"
               ).exit_code == 0
    assert set(stored(db)) == set(after)


def test_a_folder_of_one_systems_versions_named_by_their_tags_is_told_how_to_group_them(multi, tmp_path,
                                                                                         monkeypatch):
    """sysA/v1.txt ... tagged sysA-v1 ...: each tag is a run's name and its system, so history shows
    nothing; the ingest says how to put them in one system, and that command, run as printed, does."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sysA").mkdir()
    source = (multi / "runs" / "BM25" / "trec_results_news.txt").read_text()
    for version in (1, 2, 3):
        (tmp_path / "sysA" / f"v{version}.txt").write_text(
            changed(source, version + 1, 0.5).replace(" rank\n", f" sysA-v{version}\n"))
    db = tmp_path / "irw.duckdb"
    irw = Cli(db)
    result = irw("ingest", "run", "sysA/")
    assert result.exit_code == 0, result.stderr
    assert {name: system for name, (system, _) in stored(db).items()} == {
        f"sysA-v{v}": f"sysA-v{v}" for v in (1, 2, 3)}
    note = ("sysA: runs sysA-v1, sysA-v2 and sysA-v3 are named by their tags, each its own system, and their tags "
            "share 'sysA-': if they are versions of one system, put them in the folder's: "
            "`irw ingest run sysA --system '{folder}' --replace` (the same bytes: only their system changes)")
    assert note in result.stderr.splitlines()
    (command,) = hints(note)
    grouped = run_hint(irw, command, [])
    assert grouped.exit_code == 0, grouped.stderr
    assert {name: system for name, (system, _) in stored(db).items()} == {f"sysA-v{v}": "sysA" for v in (1, 2, 3)}
    assert "named by their tags" not in grouped.stderr
    # a collection's folder of different systems' runs, each tagged by its system: nothing said
    folder = tmp_path / "covid"
    folder.mkdir()
    for system in SYSTEMS:
        text = (multi / "runs" / system / "trec_results_covid.txt").read_text()
        (folder / f"{system}.txt").write_text(re.sub(r" (rank|run_id)\n", f" {system.lower()}\n", text))
    unrelated = irw("ingest", "run", folder)
    assert unrelated.exit_code == 0, unrelated.stderr
    assert "named by their tags" not in unrelated.stderr
    assert {name: system for name, (system, _) in stored(db).items() if "sysA" not in name} == {
        s.lower(): s.lower() for s in SYSTEMS}


def test_a_system_folders_file_written_again_is_a_new_version_of_its_run(multi, tmp_path, monkeypatch):
    """docs/input-formats.md's example: runs/BM25/ stored (BM25.covid ..., system BM25 by rule 3),
    then trec_results_covid.txt written again: the error's command stores it as BM25.covid.DATE,
    system BM25, and the folder again is a no-op."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(multi / "runs" / "BM25", tmp_path / "runs" / "BM25")
    db = tmp_path / "irw.duckdb"
    irw = Cli(db)
    assert irw("ingest", "run", "runs/BM25/").exit_code == 0
    path = tmp_path / "runs" / "BM25" / "trec_results_covid.txt"
    path.write_text(changed(path.read_text(), 7, 0.5))
    dated(path, MONTHS["bycoll3"])
    refused = irw("ingest", "run", "runs/BM25/")
    assert refused.exit_code == 1
    assert hints(refused.stderr) == [
        "--replace", "irw ingest run runs/BM25/trec_results_covid.txt --name BM25.covid.2026-03-01 --system BM25"]
    assert run_hint(irw, hints(refused.stderr)[1], []).exit_code == 0
    again = irw("ingest", "run", "runs/BM25/")
    *lines, total = again.stderr.splitlines()  # the batch's count last
    assert again.exit_code == 0 and all(line.endswith("nothing to do") for line in lines)
    assert total == f"{len(lines)} files: {len(lines)} unchanged"
    assert {name: system for name, (system, _) in stored(db).items()} == {
        **{f"BM25.{c}": "BM25" for c in ("covid", "dl21", "dl22", "news")}, "BM25.covid.2026-03-01": "BM25"}
