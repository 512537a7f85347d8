"""`irw ingest run` on batches of real run files: one run per file, names by one rule, the whole
batch checked before anything is stored, and dates whose source is recorded (schema 007).

The DL19 tests read the six TREC DL 2019 passage runs in ../shared/conformance, all tagged `rank`
(skipped where the folder is absent, as conftest's `conformance` fixture says); the rest use small
files written here.
"""
from __future__ import annotations

import csv
import datetime as dt
import glob
import io
import os
import re
import shlex
from pathlib import Path

import pytest

import warehouse
from warehouse.ingestion.batch import common_prefix, parse_iso_date, run_file_stem
from warehouse.engines.duckdb import migrations

from docs_pages import page
from conftest import QRELS_ROWS, RUN_ROWS, Cli, fingerprint_at, qrels_text, run_text, write_file

ROOT = Path(__file__).resolve().parents[1]
README = page("quickstart")  # "Your own data", moved from the README to docs/quickstart.md
# the six DL19 runs (run.dl19.NAME.txt) and the names the README promises them
DL19_NAMES = ["BM25", "BM25_RM3", "D_BERT_KD_TASB", "OPEN_AI_ADA2", "REP_LLAMA", "SPLADE_P_P_ENSEMBLE_DISTIL"]


def stored(db_path: Path, columns: str = "name, tag, row_count") -> list[tuple]:
    """The stored runs, oldest first; none when a failed command left no warehouse behind."""
    if not db_path.exists():
        return []
    with warehouse.open(db_path, read_only=True) as wh:
        return wh.sql(f"select {columns} from runs order by run_id").rows


def data_lines(path: Path) -> int:
    """wc -l of a run file, less its comment and blank lines (the README's row-count promise)."""
    with open(path, encoding="utf-8") as handle:
        return sum(1 for line in handle if line.strip() and not line.split()[0].startswith("#"))


@pytest.fixture
def dl19(conformance: Path, tmp_path: Path) -> Path:
    """A working folder as the README's user has it: qrels.dl19-passage.txt and runs/ (links to the
    conformance files, which are never copied)."""
    work = tmp_path / "work"
    work.mkdir()
    source = conformance / "dl19-passage"
    (work / "runs").symlink_to(source / "runs", target_is_directory=True)
    (work / "qrels.dl19-passage.txt").symlink_to(source / "qrels.dl19-passage.txt")
    return work


def shell_words(line: str, cwd: Path) -> list[str]:
    """A command line split as the shell splits it, globs expanded (in sorted order, as bash does
    under LC_ALL=C) against cwd; a glob matching nothing stays as written, as in bash."""
    words = []
    for word in shlex.split(line):
        if any(c in word for c in "*?["):
            matches = sorted(glob.glob(word, root_dir=cwd))
            words.extend(matches or [word])
        else:
            words.append(word)
    return words


# -- the README's "Your own data", literally -------------------------------------------------------

def own_data_ingest_lines() -> list[str]:
    block = README.split("Your own data goes in the same way:", 1)[1].split("```", 2)[1]
    return [line for line in block.splitlines() if line.startswith("irw ingest ")]


def test_the_readme_own_data_ingest_lines_store_six_runs_with_the_promised_names(dl19, tmp_path, monkeypatch):
    lines = own_data_ingest_lines()
    assert [line.split()[:3] for line in lines] == [["irw", "ingest", "qrels"], ["irw", "ingest", "run"]]
    assert "runs/*.txt" in lines[1].split()
    irw = Cli(tmp_path / "irw.duckdb")
    monkeypatch.chdir(dl19)  # the README's relative paths
    for line in lines:
        result = irw(*shell_words(line, dl19)[1:])
        assert result.exit_code == 0, result.stderr
    files = sorted((dl19 / "runs").glob("*.txt"))
    assert [f.name for f in files] == [f"run.dl19.{name}.txt" for name in DL19_NAMES]
    runs = stored(tmp_path / "irw.duckdb", "name, tag, row_count, source_path")
    assert [r[0] for r in runs] == DL19_NAMES
    assert {r[1] for r in runs} == {"rank"}  # one tag: names come from the file names
    for (name, _, rows, source), path in zip(runs, files):
        assert rows == data_lines(path), name
        assert Path(source) == path.resolve()
    assert [r[2] for r in runs] == [4300, 4300, 4300, 4300, 43000, 4300]
    for name in DL19_NAMES:  # the README names the runs it promises
        assert f"`{name}`" in README


# -- DL19: six runs tagged `rank` ------------------------------------------------------------------

def test_a_folder_of_dl19_runs_is_six_runs_and_again_a_no_op_per_file(dl19, irw, db_path):
    first = irw("ingest", "run", dl19 / "runs")
    assert first.exit_code == 0, first.stderr
    assert [r[0] for r in stored(db_path)] == DL19_NAMES
    for name in DL19_NAMES:
        path = dl19 / "runs" / f"run.dl19.{name}.txt"
        assert (f"{path}: named {name} from its file name: its tag rank is a placeholder, not a name"
                in first.stderr.splitlines())
        assert f"ingested run {name}: " in first.stderr and str(path) in first.stderr
    before = fingerprint_at(db_path)
    # the folder again, then the files by a glob: the same names, nothing to do, said for each file
    for args in ([dl19 / "runs"], shell_words("runs/*.txt", dl19)):
        again = irw("ingest", "run", *[dl19 / a for a in args])
        assert again.exit_code == 0, again.stderr
        *lines, total = again.stderr.splitlines()
        assert len(lines) == 6 and total == "6 files: 6 unchanged"  # what became of the batch, counted
        for line, name in zip(lines, DL19_NAMES):
            assert re.fullmatch(rf"run {name} already holds these bytes \(sha256 [0-9a-f]{{12}}\) of "
                                rf"{re.escape(str(dl19 / 'runs' / f'run.dl19.{name}.txt'))}; nothing to do", line)
        assert fingerprint_at(db_path) == before


def test_replace_on_the_dl19_batch_never_lets_one_file_overwrite_another(dl19, irw, db_path):
    """The old path: --replace runs/*.txt left one run holding the last file."""
    files = [dl19 / f for f in shell_words("runs/*.txt", dl19)]
    result = irw("ingest", "run", "--replace", *files)
    assert result.exit_code == 0, result.stderr
    assert [(r[0], r[2]) for r in stored(db_path)] == [(n, data_lines(f)) for n, f in zip(DL19_NAMES, files)]


def test_dl19_by_tag_lists_every_file_and_stores_nothing(dl19, irw, db_path):
    files = [dl19 / f for f in shell_words("runs/*.txt", dl19)]
    result = irw("ingest", "run", "--name-from", "tag", *files)
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 7
    for line, path in zip(lines, files):
        assert line.startswith(f"Error: {path}: would be stored as run rank, as would ")
        # three of the others named, the rest counted (each of a large clash named every other one)
        others = [str(other) for other in files if other != path]
        assert f"as would {', '.join(others[:3])} and 2 more files of this batch; " in line
        assert line.endswith("one file of a batch never replaces another: pass `--name-template '{short}'` to "
                             "name every file of the batch apart (instead of --name-from tag)")
    assert lines[-1] == "Error: nothing was stored: 6 of 6 files cannot be ingested as they are"
    assert stored(db_path) == []


def test_one_dl19_file_is_named_by_its_file_as_its_tag_rank_is_a_placeholder(dl19, irw, db_path):
    """The old path stored a lone DL19 file as run `rank`, and the next as the file's name."""
    bm25, rm3 = dl19 / "runs" / "run.dl19.BM25.txt", dl19 / "runs" / "run.dl19.BM25_RM3.txt"
    first = irw("ingest", "run", bm25)
    assert first.exit_code == 0, first.stderr
    assert first.stderr.splitlines()[0] == (
        f"{bm25}: named run.dl19.BM25 from its file name: its tag rank is a placeholder, not a name")
    second = irw("ingest", "run", rm3)
    assert second.exit_code == 0, second.stderr
    assert stored(db_path) == [("run.dl19.BM25", "rank", 4300), ("run.dl19.BM25_RM3", "rank", 4300)]
    # the same command again: the same name, nothing to do
    again = irw("ingest", "run", rm3)
    assert again.exit_code == 0 and "nothing to do" in again.stderr
    # --name-from tag is asked for: the placeholder is then the name
    tagged = irw("ingest", "run", rm3, "--name-from", "tag")
    assert tagged.exit_code == 0, tagged.stderr
    assert f"ingested run rank: 4300 lines, 43 queries from {rm3}" in tagged.stderr.splitlines()
    assert f"{rm3}: the same bytes are stored as run run.dl19.BM25_RM3 too" in tagged.stderr.splitlines()


# -- small batches: every problem listed with its file, nothing stored -----------------------------

def test_every_bad_file_and_collision_of_a_batch_is_listed_and_nothing_stored(seeded_db, irw, tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    nan = write_file(folder, "a.nan.txt", run_text(RUN_ROWS, tag="a") + "q9 Q0 d1 1 NaN a\n")
    two_tags = write_file(folder, "a.two.txt", run_text(RUN_ROWS, tag="b") + run_text([("q9", "d1", 1, "1")], "c"))
    taken = write_file(folder, "a.tagA.txt", run_text(RUN_ROWS[:1], tag="x"))  # seeded run tagA: other bytes
    good = write_file(folder, "a.good.txt", run_text(RUN_ROWS, tag="good"))
    (folder / ".hidden").write_text("not a run\n")  # hidden files are not part of a folder's batch
    before = fingerprint_at(seeded_db)
    result = irw("ingest", "run", folder, "--name-from", "file")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"Error: {nan}:5: score NaN is not finite",
        f"Error: {taken}: run tagA already exists with different content; pass `--replace` to replace it and every "
        "score computed from it, or pass `--name-template '{stem}'` to name every file of the batch apart "
        "(instead of --name-from file)",
        f"Error: {two_tags}:5: a second run tag 'c' (the file began with tag 'b'); a run file holds one run: "
        "split it into one file per tag",
        "Error: nothing was stored: 3 of 4 files cannot be ingested as they are; fix the files named above, or leave them out, and run the command again",
    ]
    assert fingerprint_at(seeded_db) == before
    assert good.exists()


def test_two_files_of_one_name_are_an_error_naming_both(irw, db_path, tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    one = write_file(tmp_path / "x", "run.txt", run_text(RUN_ROWS, tag="one"))
    two = write_file(tmp_path / "y", "run.txt.gz", run_text(RUN_ROWS[:2], tag="two"))
    result = irw("ingest", "run", "--name-from", "file", one, two)
    assert result.exit_code == 1
    hint = "pass `--name-template '{folder}.{short}'` to name every file of the batch apart (instead of --name-from file)"
    assert result.stderr.splitlines()[:2] == [
        f"Error: {one}: would be stored as run run, as would {two}; one file of a batch never replaces another: {hint}",
        f"Error: {two}: would be stored as run run, as would {one}; one file of a batch never replaces another: {hint}",
    ]
    assert not stored(db_path)
    # by their (distinct) tags they go in; a file given twice is one run
    assert irw("ingest", "run", one, two, one).exit_code == 0
    assert stored(db_path) == [("one", "one", 4), ("two", "two", 2)]


def test_the_same_bytes_in_two_folders_of_a_batch_are_one_run(irw, db_path, tmp_path, conformance):
    """covid's BM25 copied by mistake into news/ beside news's BM25_RM3: it was stored twice, as BM25
    and news.BM25, and its covid queries made news/ look like one system's folder of several
    collections (news.BM25_RM3, system news). The copy is now the same run, said so and stored once;
    the others are named as if it were not there."""
    runs = conformance / "multi-collection" / "runs"
    for folder in ("covid", "news"):
        (tmp_path / folder).mkdir()
    (tmp_path / "covid" / "BM25.txt").write_bytes((runs / "BM25" / "trec_results_covid.txt").read_bytes())
    (tmp_path / "news" / "BM25.txt").write_bytes((runs / "BM25" / "trec_results_covid.txt").read_bytes())
    (tmp_path / "news" / "BM25_RM3.txt").write_bytes((runs / "BM25_RM3" / "trec_results_news.txt").read_bytes())
    result = irw("ingest", "run", tmp_path / "covid", tmp_path / "news")
    assert result.exit_code == 0, result.stderr
    assert f"{tmp_path / 'news' / 'BM25.txt'}: the same bytes as {tmp_path / 'covid' / 'BM25.txt'}: one run, BM25, " \
        "stored once" in result.stderr.splitlines()
    assert stored(db_path, "name, system, row_count") == [("BM25", "BM25", 5000), ("BM25_RM3", "BM25_RM3", 5700)]
    with warehouse.open(db_path) as wh:
        again = wh.ingest_runs([tmp_path / "covid", tmp_path / "news"])
    assert [(r.name, r.status) for r in again] == [("BM25", "unchanged")] * 2 + [("BM25_RM3", "unchanged")]


def test_replace_in_a_batch_replaces_the_run_that_has_the_files_name(irw, db_path, tmp_path):
    old = write_file(tmp_path, "old.txt", run_text(RUN_ROWS[:1], tag="rank"))
    assert irw("ingest", "run", old, "--name", "b").exit_code == 0
    a = write_file(tmp_path, "sys.a.txt", run_text(RUN_ROWS, tag="rank"))
    b = write_file(tmp_path, "sys.b.txt", run_text(RUN_ROWS[:3], tag="rank"))
    refused = irw("ingest", "run", a, b, "--name-from", "file")
    assert refused.exit_code == 1
    assert refused.stderr.splitlines()[0].startswith(f"Error: {b}: run b already exists with different content")
    assert stored(db_path) == [("b", "rank", 1)]
    result = irw("ingest", "run", a, b, "--replace")
    assert result.exit_code == 0, result.stderr
    assert f"replaced run b: 3 lines, 1 query from {b}" in result.stderr.splitlines()
    assert sorted(stored(db_path)) == [("a", "rank", 4), ("b", "rank", 3)]


def test_a_missing_file_or_empty_folder_is_named(irw, db_path, tmp_path):
    (tmp_path / "empty").mkdir()
    good = write_file(tmp_path, "good.txt", run_text(RUN_ROWS))
    result = irw("ingest", "run", good, tmp_path / "nope.txt", tmp_path / "empty")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"Error: {tmp_path / 'nope.txt'}: no such file",
        f"Error: {tmp_path / 'empty'}: a folder without run files: give the run files, or the folder that holds them",
        "Error: nothing was stored: 2 of 3 files and folders cannot be ingested as they are; fix the files named above, or leave them out, and run the command again",
    ]
    assert stored(db_path) == []


def test_a_qrels_folder_of_folders_names_them_and_the_command_that_reads_them(irw, tmp_path):
    """`irw ingest qrels FOLDER` of one folder per collection said only that the folder had no qrels
    files (a regression hunt); it names the folders and the command, as `irw ingest run` does."""
    for collection in ("dl21", "covid"):
        (tmp_path / "qrels" / collection).mkdir(parents=True)
    result = irw("ingest", "qrels", tmp_path / "qrels")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"Error: {tmp_path / 'qrels'}: a folder without qrels files, only folders (covid, dl21); a folder's "
        f"subfolders are not read: ingest them with `irw ingest qrels {tmp_path / 'qrels'}/*/`")


def test_name_takes_the_one_qrels_file_a_folder_holds(irw, db_path, tmp_path):
    """`irw ingest qrels FOLDER --name X` of a folder holding one file was refused as several files
    (a lab walk): the folder is read first, and --name names its one file; two are still refused."""
    (tmp_path / "judged").mkdir()
    write_file(tmp_path / "judged", "qrels.2021.txt", qrels_text())
    result = irw("ingest", "qrels", tmp_path / "judged", "--name", "dl21")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"ingested qrels dl21: 4 lines, 2 queries from {tmp_path / 'judged' / 'qrels.2021.txt'}"]
    write_file(tmp_path / "judged", "qrels.2022.txt", qrels_text(QRELS_ROWS[:2]))
    refused = irw("ingest", "qrels", tmp_path / "judged", "--name", "dl22")
    assert refused.exit_code == 2
    assert refused.stderr.splitlines() == [
        "Error: --name names one qrels set, and 2 files were given; without it each is named by its file name "
        "(`irw rename qrels` renames a set)"]
    with warehouse.open(db_path, read_only=True) as wh:
        assert wh.sql("select name from qrels_sets order by name").rows == [("dl21",)]


def test_name_and_name_from_together_are_a_usage_error(irw, db_path, tmp_path):
    result = irw("ingest", "run", write_file(tmp_path, "r.txt", run_text(RUN_ROWS)), "--name", "x",
                 "--name-from", "file")
    assert result.exit_code == 2
    assert "--name and --name-from both name the run" in result.stderr
    assert not db_path.exists()


def test_the_python_api_ingests_a_batch(tmp_path):
    files = [write_file(tmp_path, f"exp-{n}.run.gz", run_text(RUN_ROWS[:k], tag="same")) for n, k in (("b", 2), ("a", 3))]
    with warehouse.open(tmp_path / "api.duckdb") as wh:
        results = wh.ingest_runs(files)
        assert [(r.name, r.status, r.rows) for r in results] == [("b", "ingested", 2), ("a", "ingested", 3)]
        assert [(r.name, r.status) for r in wh.ingest_runs(files)] == [("b", "unchanged"), ("a", "unchanged")]


@pytest.mark.parametrize("stems, prefix", [
    (["run.dl19.BM25", "run.dl19.BM25_RM3"], "run.dl19."),  # cut at a separator, never inside BM25
    (["bm25", "bm25-rm3"], ""),  # nothing would be left of bm25
    (["exp_1", "exp_2", "exp_10"], "exp_"),
    (["a.x", "b.x"], ""),
    (["only.one"], ""),
])
def test_the_common_prefix_is_cut_after_a_separator(stems, prefix):
    assert common_prefix(stems) == prefix


@pytest.mark.parametrize("file, stem", [
    ("run.dl19.BM25.txt", "run.dl19.BM25"), ("bm25.run.txt.gz", "bm25"), ("x.trec.bz2", "x"),
    ("BM25.TXT", "BM25"), ("results.v2", "results.v2"), (".txt", ".txt"),
])
def test_run_file_stems(file, stem):
    assert run_file_stem(Path(file)) == stem


# -- dates ----------------------------------------------------------------------------------------------

def test_date_sources_given_ir_metadata_and_file_time(irw, db_path, tmp_path):
    plain = write_file(tmp_path, "plain.txt", run_text(RUN_ROWS, tag="plain"))
    stamp = dt.datetime(2021, 3, 4, 5, 6, 7, tzinfo=dt.timezone.utc).timestamp()
    os.utime(plain, (stamp, stamp))
    header = ("# ir_metadata.start\n# schema-version: 0.1\n# tag: meta\n"
              "# date: '2023-09-30T22:15:00-02:00'  # when the run was made\n"
              "# method:\n#   date: 1999-01-01\n# ir_metadata.end\n")
    meta = write_file(tmp_path, "meta.txt", header + run_text(RUN_ROWS, tag="meta"))
    assert irw("ingest", "run", plain, meta).exit_code == 0
    given = write_file(tmp_path, "given.txt", header + run_text(RUN_ROWS, tag="given"))
    assert irw("ingest", "run", given, "--date", "2024-02-29").exit_code == 0
    assert stored(db_path, "name, file_created_at, date_source") == [
        ("plain", dt.datetime(2021, 3, 4, 5, 6, 7), "file mtime"),
        ("meta", dt.datetime(2023, 10, 1, 0, 15), "ir_metadata"),  # converted to UTC; the nested date ignored
        ("given", dt.datetime(2024, 2, 29), "--date"),
    ]
    listing = list(csv.DictReader(io.StringIO(irw("runs", "--format", "csv").stdout)))
    assert [(r["name"], r["date"], r["date_source"]) for r in listing] == [
        ("plain", "2021-03-04 05:06:07", "file mtime"), ("meta", "2023-10-01 00:15:00", "ir_metadata"),
        ("given", "2024-02-29 00:00:00", "'--date")]  # csv text starting with - is no formula (issue 24)


@pytest.mark.parametrize("bad", ["yesterday", "01/05/2024", "2024-5-1"])
def test_a_bad_date_is_a_usage_error_that_shows_the_format(bad, irw, db_path, tmp_path):
    result = irw("ingest", "run", write_file(tmp_path, "r.txt", run_text(RUN_ROWS)), "--date", bad)
    assert result.exit_code == 2
    assert result.stderr == (f"Error: --date takes an ISO date or date and time: YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS] "
                             "(a space may stand for the T), optionally ending in Z or +HH:MM (then converted to "
                             f"UTC); got {bad!r}\n")
    assert not db_path.exists()


@pytest.mark.parametrize("bad", ["2024-02-30", "2024-05-01T25:00"])
def test_a_date_in_the_format_that_names_no_day_or_time_says_so(bad, irw, db_path, tmp_path):
    """Written as the format says, but February has no 30th and a day no 25th hour: showing the
    format it follows helped no one (a lifecycle walk)."""
    result = irw("ingest", "run", write_file(tmp_path, "r.txt", run_text(RUN_ROWS)), "--date", bad)
    assert result.exit_code == 2
    assert result.stderr == (f"Error: --date {bad!r} is written as a date but names no day of the calendar (or no "
                             "time of day): give one that exists\n")
    assert not db_path.exists()


@pytest.mark.parametrize("text, value", [
    ("2024-05-01", dt.datetime(2024, 5, 1)),
    ("2024-05-01 10:20", dt.datetime(2024, 5, 1, 10, 20)),
    ("2024-05-01T10:20:30.5Z", dt.datetime(2024, 5, 1, 10, 20, 30, 500000)),
    ("2024-05-01T01:00:00+0230", dt.datetime(2024, 4, 30, 22, 30)),
])
def test_iso_dates(text, value):
    assert parse_iso_date(text) == value


def test_replace_corrects_the_date_of_a_run_already_stored_and_keeps_its_scores(seeded_db, irw, tmp_path):
    path = write_file(tmp_path, "seed.run", run_text(RUN_ROWS))  # the seeded run tagA's bytes
    assert irw("eval", "--qrels", "base", "-m", "AP", "tagA").exit_code == 0
    with warehouse.open(seeded_db, read_only=True) as wh:
        scores = wh.sql("select run_id, query_id, measure, value from scores order by all").rows
    assert scores
    asked = irw("ingest", "run", path, "--date", "2019-03-01")
    assert asked.exit_code == 0
    assert asked.stderr.splitlines()[-1].startswith(f"{path}: run tagA is dated ")
    assert asked.stderr.splitlines()[-1].endswith("(from file mtime), not 2019-03-01 00:00:00: "
                                                  "pass --replace to change its date")
    redated = irw("ingest", "run", path, "--date", "2019-03-01", "--replace")
    assert redated.exit_code == 0, redated.stderr
    lines = redated.stderr.splitlines()
    assert lines[0].startswith(f"{path}: run tagA already holds these bytes; its date is now 2019-03-01 00:00:00 "
                               "(from --date), was ")
    assert lines[1] == f"redated run tagA: 4 lines, 2 queries from {path}"
    assert stored(seeded_db, "name, file_created_at, date_source") == [("tagA", dt.datetime(2019, 3, 1), "--date")]
    with warehouse.open(seeded_db, read_only=True) as wh:  # same bytes: the scores stay
        assert wh.sql("select run_id, query_id, measure, value from scores order by all").rows == scores
    again = irw("ingest", "run", path, "--date", "2019-03-01", "--replace")
    assert again.exit_code == 0 and again.stderr.rstrip().endswith("nothing to do")


def test_a_bad_ir_metadata_date_names_the_file_and_is_overridden_by_date(irw, db_path, tmp_path):
    path = write_file(tmp_path, "r.txt", "# ir_metadata.start\n# date: last Tuesday\n# ir_metadata.end\n"
                      + run_text(RUN_ROWS))
    refused = irw("ingest", "run", path)
    assert refused.exit_code == 1
    assert refused.stderr.startswith(f"Error: {path}: the ir_metadata date 'last Tuesday' is not an ISO date")
    assert refused.stderr.rstrip().endswith("correct the header, or pass --date")
    assert irw("ingest", "run", path, "--date", "2020-01-01").exit_code == 0
    assert stored(db_path, "date_source") == [("--date",)]


def test_migrating_to_007_gives_stored_runs_the_file_time_source(db_path, tmp_path):
    assert (7, "schema/007_run_dates.sql") in migrations()
    with warehouse.open(db_path) as wh:
        wh.ingest_run(write_file(tmp_path, "a.run", run_text(RUN_ROWS, tag="a")))
        dated = wh.sql("select file_created_at from runs").rows
        # back to schema 6, as a warehouse written before 007 is
        wh.db.execute("alter table runs drop column date_source")
        wh.db.execute("delete from irw_schema where version >= 7")
    with warehouse.open(db_path) as wh:
        assert wh.db.schema_version() >= 7
        assert wh.sql("select file_created_at, date_source from runs").rows == [(dated[0][0], "file mtime")]


def test_the_run_page_shows_where_the_date_came_from(seeded_db, irw, tmp_path):
    irw("ingest", "run", write_file(tmp_path, "r.txt", run_text(RUN_ROWS, tag="dated")), "--date", "2022-06-01")
    out = tmp_path / "run.html"
    result = irw("report", "run", "dated", "--qrels", "base", "-m", "AP", "-o", out)
    assert result.exit_code == 0, result.stderr
    html = out.read_text(encoding="utf-8")
    assert "<dt>Run date</dt><dd>2022-06-01 00:00:00 (from --date)</dd>" in html


def test_a_run_s_date_is_said_to_the_second_and_with_four_digit_years(seeded_db, irw, tmp_path):
    """`irw edit run --date` said a file's time with its microseconds (was 2026-12-07 06:11:55.276389),
    and a date in the year 1 was `1-01-01` in irw runs."""
    path = write_file(tmp_path, "run.txt", run_text(RUN_ROWS))
    os.utime(path, (1_700_000_000.276389, 1_700_000_000.276389))
    assert irw("ingest", "run", path, "--name", "timed").exit_code == 0
    edited = irw("edit", "run", "timed", "--date", "0001-01-01")
    assert edited.stderr == "run timed: date 0001-01-01 00:00:00 (from --date), was 2023-11-14 22:13:20 (from file mtime)\n"
    listed = irw("runs", "--format", "csv")
    assert "0001-01-01 00:00:00" in listed.stdout and ",1-01-01" not in listed.stdout, listed.stdout
