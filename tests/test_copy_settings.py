"""`irw copy` of a run or qrels set the target already holds with the same rows, after `irw edit` in
the source: the copy said "unchanged" and kept the target's system, description and date, with or
without --replace, so the two warehouses printed different leaderboards and histories. Now the
differences are said, and --replace takes the source's in place, keeping the scores."""
from __future__ import annotations

import json
import shlex

import pytest

import warehouse
from conftest import Cli

RUNS = ("BM25", "D_BERT_KD_TASB")


@pytest.fixture(params=["duckdb", "postgres"])
def target(request, tmp_path):
    return request.getfixturevalue("postgres_url") if request.param == "postgres" else str(tmp_path / "copy.duckdb")


def _settings(location: str, run: str) -> tuple:
    with warehouse.open(location, read_only=True) as wh:
        found = wh.runs([run]).to_dicts()[0]
        return found["system"], found["description"], str(found["date"]), found["date_source"]


def _board(location: str) -> str:
    board = Cli(location)("report", "leaderboard", "--qrels", "dl19", "-m", "AP", "--format", "csv")
    assert board.exit_code == 0, board.stderr
    return board.stdout


def _score_count(location: str, run: str, measure: str) -> int:
    with warehouse.open(location, read_only=True) as wh:
        return wh.sql(f"select count(*) from score_values where run = '{run}' and measure = '{measure}'").rows[0][0]


def test_a_copy_says_which_settings_differ_and_replace_takes_the_source_s(conformance, tmp_path, target):
    data = conformance / "dl19-passage"
    source = str(tmp_path / "irw.duckdb")
    irw = Cli(source)
    assert irw("ingest", "qrels", data / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    for run in RUNS:
        assert irw("ingest", "run", data / "runs" / f"run.dl19.{run}.txt", "--name", run).exit_code == 0
    assert irw("eval", "-m", "AP", "--qrels", "dl19").exit_code == 0
    copy = Cli(source)
    first = copy("copy", "--from", source, "--to", target, db=False)
    assert first.exit_code == 0, first.stderr
    before = _settings(target, "D_BERT_KD_TASB")
    # scores of the target's own, which the source does not have to copy back
    assert Cli(target)("eval", "-m", "P@10", "--qrels", "dl19").exit_code == 0
    assert _score_count(target, "D_BERT_KD_TASB", "P@10") == 43

    edited = irw("edit", "run", "D_BERT_KD_TASB", "--system", "dense", "--description", "TAS-B dense",
                 "--date", "2026-01-10", "--param", "k1=0.9", "--param", "b=0.4")
    assert edited.exit_code == 0, edited.stderr
    relabelled = irw("ingest", "qrels", data / "qrels.dl19-passage.txt", "--name", "dl19",
                     "--description", "TREC DL 2019 passage", "--replace")
    assert relabelled.exit_code == 0, relabelled.stderr
    assert _board(source) != _board(target)

    # without --replace: kept, and said, setting by setting
    kept = copy("copy", "--from", source, "--to", target, db=False)
    assert kept.exit_code == 0, kept.stderr
    lines = kept.stderr.splitlines()
    assert "run BM25: unchanged" in lines
    # one line a run: "unchanged" and then a line of what differs read as a contradiction (a walk)
    assert not any(line == "run D_BERT_KD_TASB: unchanged" or line == "qrels dl19: unchanged" for line in lines)
    note = next(line for line in lines if line.startswith("run D_BERT_KD_TASB: "))
    assert note == ("run D_BERT_KD_TASB: unchanged rows, but its system 'dense' in the source, 'D_BERT_KD_TASB' here; "
                    "description 'TAS-B dense' in the source, none here; parameters b=0.4, k1=0.9 in the source, "
                    f"none here; date 2026-01-10 00:00:00 (from --date) in the source, {before[2]} (from {before[3]}) here: "
                    "kept; pass --replace to take the source's (its scores stay)"), note
    assert ("qrels dl19: unchanged rows, but its description 'TREC DL 2019 passage' in the source, none here: kept; "
            "pass --replace to take the source's (its scores stay)") in lines
    assert sum(line.startswith("run D_BERT_KD_TASB: ") for line in lines) == 1
    assert _settings(target, "D_BERT_KD_TASB") == before

    # with --replace: the source's settings, in place; the scores stay
    taken = copy("copy", "--from", source, "--to", target, "--replace", db=False)
    assert taken.exit_code == 0, taken.stderr
    lines = taken.stderr.splitlines()
    assert "run BM25: unchanged" in lines
    assert sum(line.startswith("run D_BERT_KD_TASB: ") for line in lines) == 1
    assert (f"run D_BERT_KD_TASB: updated: the same rows; its system is now 'dense', was 'D_BERT_KD_TASB'; description is now "
            f"'TAS-B dense', was none; parameters are now b=0.4, k1=0.9, was none; date is now 2026-01-10 00:00:00 (from --date), was {before[2]} "
            f"(from {before[3]}) (its scores stay)") in lines, lines
    assert _settings(target, "D_BERT_KD_TASB") == ("dense", "TAS-B dense", "2026-01-10 00:00:00", "--date")
    assert _score_count(target, "D_BERT_KD_TASB", "P@10") == 43
    assert _board(source) == _board(target)
    # irw runs shows the parameters, in the same order from either engine
    listed = Cli(target)("runs", "D_BERT_KD_TASB")
    assert listed.exit_code == 0 and "  b=0.4, k1=0.9  " in listed.stdout, listed.stdout
    assert listed.stdout == irw("runs", "D_BERT_KD_TASB").stdout
    as_json = Cli(target)("runs", "D_BERT_KD_TASB", "-f", "json").stdout
    assert as_json == irw("runs", "D_BERT_KD_TASB", "-f", "json").stdout
    assert list(json.loads(as_json)[0]["parameters"].items()) == [("b", "0.4"), ("k1", "0.9")]
    with warehouse.open(target, read_only=True) as wh:
        assert wh.qrels_sets().to_dicts()[0]["description"] == "TREC DL 2019 passage"

    # nothing left to say
    again = copy("copy", "--from", source, "--to", target, db=False)
    assert again.exit_code == 0, again.stderr
    assert not any("the same rows" in line or "unchanged rows" in line for line in again.stderr.splitlines()), \
        again.stderr


def test_a_run_renamed_in_the_source_is_said_to_be_held_under_its_old_name(conformance, tmp_path, target):
    """A run and a qrels set renamed in the source were copied as second ones beside the old names,
    with nothing said: a pattern then took the same rows twice, and `irw eval '*covid'` was refused
    as judged by two sets."""
    data = conformance / "dl19-passage"
    source = str(tmp_path / "irw.duckdb")
    irw = Cli(source)
    assert irw("ingest", "qrels", data / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    assert irw("ingest", "run", data / "runs" / "run.dl19.BM25.txt", "--name", "BM25").exit_code == 0
    assert irw("copy", "--from", source, "--to", target, db=False).exit_code == 0
    assert irw("rename", "run", "BM25", "bm25-2019").exit_code == 0
    assert irw("rename", "qrels", "dl19", "dl19-passage").exit_code == 0
    again = irw("copy", "--from", source, "--to", target, db=False)
    assert again.exit_code == 0, again.stderr
    lines = again.stderr.splitlines()
    assert "run bm25-2019: copied" in lines and "qrels dl19-passage: copied" in lines
    assert ("run bm25-2019: the target holds the same rows as run BM25 too (renamed in one of the two "
            "warehouses?): `irw rm run` the name not wanted") in lines, lines
    assert ("qrels dl19-passage: the target holds the same rows as qrels set dl19 too (renamed in one of the two "
            "warehouses?): `irw rm qrels` the name not wanted") in lines, lines



def test_a_run_this_copy_replaces_is_not_named_as_holding_another_s_rows(conformance, tmp_path, target):
    """A lifecycle walk: `irw copy --replace` said `run RM3-renamed: the target holds the same rows as
    run bm25 too ... irw rm run the name not wanted`, of bm25's rows before that same copy replaced
    them (RM3-renamed comes first in byte order); removing bm25 as told would remove the run copied."""
    data = conformance / "dl19-passage"
    source = str(tmp_path / "irw.duckdb")
    irw = Cli(source)
    assert irw("ingest", "qrels", data / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    assert irw("ingest", "run", data / "runs" / "run.dl19.BM25_RM3.txt", "--name", "bm25").exit_code == 0
    assert irw("copy", "--from", source, "--to", target, db=False).exit_code == 0  # target: bm25 of RM3's rows
    assert irw("rename", "run", "bm25", "RM3-renamed").exit_code == 0
    assert irw("ingest", "run", data / "runs" / "run.dl19.BM25.txt", "--name", "bm25").exit_code == 0
    copied = irw("copy", "--from", source, "--to", target, "--replace", db=False)
    assert copied.exit_code == 0, copied.stderr
    assert "run RM3-renamed: copied" in copied.stderr.splitlines() and "bm25: replaced" in copied.stderr
    assert "the same rows" not in copied.stderr, copied.stderr

def test_rows_the_source_holds_under_two_names_are_copied_without_a_rename_note(conformance, tmp_path, target):
    """A source holding one file under two names on purpose (--name), copied into an empty target:
    the second name's copy said the target held its rows under the first "(renamed in one of the two
    warehouses?)" and offered `irw rm run`, though nothing was renamed and the source holds both."""
    data = conformance / "dl19-passage"
    source = str(tmp_path / "irw.duckdb")
    irw = Cli(source)
    assert irw("ingest", "qrels", data / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    for name in ("bm25-jan", "dense-jan"):
        assert irw("ingest", "run", data / "runs" / "run.dl19.BM25.txt", "--name", name).exit_code == 0
    copied = irw("copy", "--from", source, "--to", target, db=False)
    assert copied.exit_code == 0, copied.stderr
    assert copied.stderr.splitlines() == ["qrels dl19: copied", "run bm25-jan: copied", "run dense-jan: copied",
                                          "0 stored per-query scores copied"]


def test_one_clash_is_said_in_the_singular(conformance, tmp_path):
    data = conformance / "dl19-passage"
    source, target = str(tmp_path / "irw.duckdb"), str(tmp_path / "copy.duckdb")
    for location, file in ((source, "run.dl19.BM25.txt"), (target, "run.dl19.BM25_RM3.txt")):
        assert Cli(location)("ingest", "run", data / "runs" / file, "--name", "BM25").exit_code == 0
    clash = Cli(source)("copy", "--from", source, "--to", target, db=False)
    assert clash.exit_code == 1
    assert clash.stderr == (f"Error: {target} already holds run BM25 with other content; pass --replace to replace it "
                            "(and every score computed with it), or remove it there first\n")


def test_a_replace_says_the_scores_that_went_with_the_old_content(conformance, tmp_path, target):
    """`irw copy --replace` said "run X: replaced": the target's scores computed with the old rows
    were gone (1,250 in a walk) with nothing said of them."""
    data = conformance / "dl19-passage"
    source = str(tmp_path / "irw.duckdb")
    irw = Cli(source)
    assert irw("ingest", "qrels", data / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    assert irw("ingest", "run", data / "runs" / "run.dl19.BM25.txt", "--name", "BM25").exit_code == 0
    theirs = Cli(target)
    assert theirs("ingest", "qrels", data / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    assert theirs("ingest", "run", data / "runs" / "run.dl19.BM25_RM3.txt", "--name", "BM25").exit_code == 0
    assert theirs("eval", "-m", "AP", "-m", "P@10", "--qrels", "dl19").exit_code == 0
    assert _score_count(target, "BM25", "AP") == 43

    replaced = irw("copy", "--from", source, "--to", target, "--replace", db=False)
    assert replaced.exit_code == 0, replaced.stderr
    lines = replaced.stderr.splitlines()
    assert ("run BM25: replaced, with the 86 stored per-query scores computed with the target's content") in lines, lines
    assert "qrels dl19: unchanged" in lines
    assert _score_count(target, "BM25", "AP") == 0
    # a replaced run none of whose scores were stored says nothing more
    assert irw("ingest", "run", data / "runs" / "run.dl19.BM25_RM3.txt", "--name", "BM25", "--replace").exit_code == 0
    again = irw("copy", "--from", source, "--to", target, "--replace", db=False)
    assert "run BM25: replaced" in again.stderr.splitlines(), again.stderr


def test_a_run_the_source_lacks_is_looked_up_in_the_source(conformance, tmp_path):
    """`irw copy --run NAME` of a name the source lacks said "`irw runs` lists the stored runs",
    which lists --db's (or ./irw.duckdb's) runs, not the --from warehouse's."""
    data = conformance / "dl19-passage"
    source = tmp_path / "carol's runs.duckdb"
    irw = Cli(source)
    assert irw("ingest", "qrels", data / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    assert irw("ingest", "run", data / "runs" / "run.dl19.BM25.txt", "--name", "BM25.dl19").exit_code == 0
    missing = irw("copy", "--from", source, "--to", tmp_path / "team.duckdb", "--run", "BM25.dl91", db=False)
    assert missing.exit_code == 1
    assert missing.stderr == (f"Error: no run named 'BM25.dl91'; did you mean BM25.dl19? `irw runs --db "
                              f"{shlex.quote(str(source))}` lists the stored runs\n"), missing.stderr
    assert not (tmp_path / "team.duckdb").exists()
