"""Two hints that led to another error (a user's walk of a warehouse of several collections):

1. A run named outright that no stored qrels set judges (BM25's DL 2022 run: no DL 2022 qrels are
   stored), chosen with runs some set does judge and without --qrels, was refused with "qrels covid
   judges 1 of the 2 runs chosen: add `--qrels covid`"; adding it gave "run BM25.dl22 has no query
   judged in qrels covid". No --qrels can work there, so the first message now says that the run is
   judged by no stored set, and what to do (leave it out, with the --qrels that then judges the
   rest; or ingest its collection's qrels). eval, compare and the reports share the message
   (catalog.qrels_name).
2. Runs of two stored collections named outright (`irw eval BM25 NEWS-BM25`) were told "add
   `--qrels covid` or `--qrels news`", and each failed on the run the other set judges. The message
   now says which set judges which run, and to name one set's runs at a time.
3. `irw compare BM25 --baseline BM25` said "compare needs at least two runs (or one run and
   --baseline)" though one run and --baseline were given: it now says the run chosen is the
   baseline itself (reports/pairs.py, compared_runs), in words a Python caller reads too.

The data: ../shared/conformance/multi-collection (TREC-COVID and TREC-News qrels; BM25 and
BM25_RM3 runs of TREC-COVID and of DL 2022, whose qrels are not stored, and BM25's TREC-News run).
"""
from __future__ import annotations

from pathlib import Path

import pytest

import warehouse
from conftest import Cli
from warehouse.errors import UsageError, python_terms

COVID_QRELS = "qrels.beir-v1.0.0-trec-covid.test.txt"
NEWS_QRELS = "qrels.beir-v1.0.0-trec-news.test.txt"
RUNS = {  # name -> (system folder, collection)
    "BM25": ("BM25", "covid"), "RM3": ("BM25_RM3", "covid"),
    "BM25.dl22": ("BM25", "dl22"), "RM3.dl22": ("BM25_RM3", "dl22"),
    "NEWS-BM25": ("BM25", "news"),
}

JUDGED_BY_NONE = (
    "Error: run BM25.dl22 is judged by no stored qrels set (none holds a query it answers), so no `--qrels` judges "
    "every run chosen: leave it out (qrels covid judges run BM25: add `--qrels covid`), or ingest its collection's "
    "qrels with `irw ingest qrels FILE --name NAME` and choose it with runs of that collection\n")
BASELINE_ITSELF = ("compare needs a run besides the baseline: BM25 is the only run chosen, and it is the baseline "
                   "itself; name another run to compare with it")


@pytest.fixture(scope="module")
def mc(conformance, tmp_path_factory) -> Cli:
    """A warehouse of two qrels sets (covid, news) and five runs: two of TREC-COVID, one of TREC-News,
    and two (the .dl22 ones) judged by neither set."""
    data = conformance / "multi-collection"
    if not data.is_dir():
        pytest.skip(f"{data} is absent")
    irw = Cli(tmp_path_factory.mktemp("compare_hints") / "irw.duckdb")
    for name, file in (("covid", COVID_QRELS), ("news", NEWS_QRELS)):
        result = irw("ingest", "qrels", data / "qrels" / file, "--name", name)
        assert result.exit_code == 0, result.stderr
    for name, (system, collection) in RUNS.items():
        result = irw("ingest", "run", data / "runs" / system / f"trec_results_{collection}.txt", "--name", name)
        assert result.exit_code == 0, result.stderr
    return irw


def out(tmp_path: Path, name: str) -> list[str]:
    return ["-o", str(tmp_path / name)]


# -- 1. a run named outright that no stored qrels set judges ----------------------------------------

def test_compare_says_the_run_is_judged_by_no_qrels_set(mc):
    result = mc("compare", "BM25", "BM25.dl22", "-m", "AP")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == JUDGED_BY_NONE
    # the hint of before, which no longer stands alone, led to another error: no --qrels judges both runs
    for qrels in ("covid", "news"):
        followed = mc("compare", "BM25", "BM25.dl22", "-m", "AP", "--qrels", qrels)
        assert followed.exit_code != 0 and "has no query judged in qrels" in followed.stderr


@pytest.mark.parametrize("command", [
    ["eval", "BM25", "BM25.dl22", "-m", "AP"],
    ["compare", "BM25", "BM25.dl22", "-m", "AP"],
    ["compare", "BM25.dl22", "BM25", "-m", "AP", "--baseline", "BM25"],
    ["report", "leaderboard", "BM25", "BM25.dl22", "-m", "AP", "-o", "LB"],
    ["report", "compare", "BM25", "BM25.dl22", "-m", "AP", "-o", "CMP"],
], ids=["eval", "compare", "compare-baseline", "leaderboard", "report-compare"])
def test_every_command_choosing_runs_says_so(mc, tmp_path, command):
    command = [str(tmp_path / f"{c}.html") if c in ("LB", "CMP") else c for c in command]
    result = mc(*command)
    assert result.exit_code == 2 and result.stdout == "", result.stderr
    assert result.stderr == JUDGED_BY_NONE
    assert "name the qrels set" not in result.stderr


@pytest.mark.parametrize("command,kept", [
    (["eval", "BM25", "BM25.dl22", "-m", "AP"], ["eval", "BM25", "-m", "AP"]),
    (["compare", "BM25", "RM3", "BM25.dl22", "-m", "AP"], ["compare", "BM25", "RM3", "-m", "AP"]),
    (["report", "leaderboard", "BM25", "RM3", "BM25.dl22", "-m", "AP", "-o", "LB"],
     ["report", "leaderboard", "BM25", "RM3", "-m", "AP", "-o", "LB"]),
], ids=["eval", "compare", "leaderboard"])
def test_the_advice_followed_works(mc, tmp_path, command, kept):
    """Leaving the run out and adding the --qrels the message offers for the rest works."""
    command = [str(tmp_path / "lb.html") if c == "LB" else c for c in command]
    kept = [str(tmp_path / "lb.html") if c == "LB" else c for c in kept]
    result = mc(*command)
    assert result.exit_code == 2 and "run BM25.dl22 is judged by no stored qrels set" in result.stderr
    offered = "add `--qrels covid`)"
    assert offered in result.stderr and "leave it out" in result.stderr
    followed = mc(*kept, "--qrels", "covid")
    assert followed.exit_code == 0, followed.stderr
    assert "BM25" in (followed.stdout or (tmp_path / "lb.html").read_text(encoding="utf-8"))


def test_two_runs_judged_by_none_are_named_together(mc):
    result = mc("eval", "BM25", "RM3.dl22", "BM25.dl22", "-m", "AP")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        "Error: runs RM3.dl22 and BM25.dl22 are judged by no stored qrels set (none holds a query they answer), so "
        "no `--qrels` judges every run chosen: leave them out (qrels covid judges run BM25: add `--qrels covid`), or "
        "ingest their collections' qrels with `irw ingest qrels FILE --name NAME` and choose them with runs of those "
        "collections\n")
    followed = mc("eval", "BM25", "-m", "AP", "--qrels", "covid")
    assert followed.exit_code == 0, followed.stderr


def test_runs_chosen_by_pattern_take_the_one_set_judging_them(mc):
    """covid alone judges the runs 'BM25*' and RM3 chose (BM25.dl22, matched, is judged by none): it is
    taken, as `--qrels covid` would be (once refused with "add `--qrels covid`"), and BM25.dl22 is
    left out as with it."""
    result = mc("compare", "BM25*", "RM3", "-m", "AP")
    followed = mc("compare", "BM25*", "RM3", "-m", "AP", "--qrels", "covid")
    assert result.exit_code == followed.exit_code == 0, result.stderr
    assert (result.stdout, result.stderr) == (followed.stdout, followed.stderr)
    assert result.stderr.startswith("# qrels covid; ")
    assert "# 1 matching run left out: no query judged in qrels covid" in result.stderr


def test_only_runs_judged_by_none_keep_the_ingest_hint(mc):
    result = mc("eval", "BM25.dl22", "-m", "AP")
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: no stored qrels set judges a query of run BM25.dl22 (this warehouse holds 2: covid, news): ingest its "
        "collection's qrels with `irw ingest qrels FILE --name NAME`, then name it with `--qrels NAME`\n")


def test_the_python_api_says_so_too(mc):
    with warehouse.open(mc.db) as wh:
        for call in (lambda: wh.evaluate(["BM25", "BM25.dl22"], None, "AP"),
                     lambda: wh.compare(["BM25", "BM25.dl22"], measures="AP")):
            with pytest.raises(UsageError) as caught:
                call()
            # in the call's words (tests/test_python_terms.py)
            assert str(caught.value) == python_terms(JUDGED_BY_NONE.removeprefix("Error: ").rstrip("\n"))
            assert "`qrels='covid'`" in str(caught.value) and "--qrels" not in str(caught.value)
        assert wh.evaluate(["BM25"], "covid", "AP").selection.names == ("BM25",)


# -- 2. runs of two collections named outright ------------------------------------------------------

@pytest.mark.parametrize("command", [
    ["compare", "BM25", "NEWS-BM25", "-m", "AP"],
    ["compare", "BM25", "-m", "AP", "--baseline", "NEWS-BM25"],
    ["report", "leaderboard", "BM25", "NEWS-BM25", "-m", "AP", "-o", "LB"],
    ["report", "leaderboard", "BM25", "-m", "AP", "--baseline", "NEWS-BM25", "-o", "LB"],
    ["report", "run", "BM25", "-m", "AP", "--baseline", "NEWS-BM25", "-o", "LB"],
], ids=["compare", "compare-baseline", "leaderboard", "leaderboard-baseline", "run-baseline"])
def test_runs_of_two_collections_named_outright_are_told_which_set_judges_which(mc, tmp_path, command):
    command = [str(tmp_path / "lb.html") if c == "LB" else c for c in command]
    result = mc(*command)
    assert result.exit_code == 2 and result.stdout == "", result.stderr
    assert result.stderr == (
        "Error: no stored qrels set judges all 2 runs named (qrels covid judges BM25; news judges NEWS-BM25), and a "
        "command evaluates against one qrels set: name the runs of one set at a time, with it (`--qrels covid` with "
        "BM25); runs of different collections are not compared with one another (their queries differ), and `irw "
        "eval` without --qrels evaluates each against its own set\n")
    # what the message said before, "add `--qrels covid` or `--qrels news`" (with a baseline: "add
    # `--qrels covid`"), fails either way
    for qrels in ("covid", "news"):
        followed = mc(*command, "--qrels", qrels)
        assert followed.exit_code != 0 and "has no query judged in qrels" in followed.stderr, followed.stderr


def test_the_python_api_s_compare_counts_its_baseline(mc):
    with warehouse.open(mc.db) as wh:
        with pytest.raises(UsageError) as caught:
            wh.compare("BM25", measures="AP", baseline="NEWS-BM25")
    assert str(caught.value).startswith("no stored qrels set judges all 2 runs named (qrels covid judges BM25; news "
                                        "judges NEWS-BM25)")


def test_a_baseline_of_the_same_set_takes_that_set(mc):
    result = mc("compare", "BM25", "-m", "AP", "--baseline", "RM3")
    followed = mc("compare", "BM25", "-m", "AP", "--baseline", "RM3", "--qrels", "covid")
    assert result.exit_code == followed.exit_code == 0, result.stderr
    assert (result.stdout, result.stderr) == (followed.stdout, followed.stderr)
    assert "RM3" in result.stdout and "BM25" in result.stdout


def test_the_runs_of_one_set_named_apart_work(mc):
    result = mc("compare", "RM3", "NEWS-BM25", "BM25", "-m", "AP")
    assert result.exit_code == 2
    assert "(qrels covid judges BM25 and RM3; news judges NEWS-BM25)" in result.stderr
    assert "(`--qrels covid` with BM25 and RM3)" in result.stderr
    for command in (["compare", "BM25", "RM3", "-m", "AP", "--qrels", "covid"],
                    ["eval", "NEWS-BM25", "-m", "AP", "--qrels", "news"]):
        followed = mc(*command)
        assert followed.exit_code == 0, followed.stderr


def test_eval_takes_runs_of_two_collections_each_against_its_own_set(mc):
    """irw eval, unlike compare, needs no one set: runs of two collections named outright (refused
    as compare is, "name the runs of one set at a time") are each evaluated against the set judging
    them, with a qrels column; the values are those of `--qrels` naming it. The Python call is
    wh.evaluate_each."""
    result = mc("eval", "RM3", "NEWS-BM25", "BM25", "-m", "AP", "-f", "csv")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.startswith("# qrels: each run's own (covid for 2 runs, news for 1 run); ")
    header, *rows = result.stdout.splitlines()
    assert header == "run,qrels,queries,AP"
    alone = {line.split(",")[0]: line.split(",", 1)[1]
             for qrels, names in (("covid", ["RM3", "BM25"]), ("news", ["NEWS-BM25"]))
             for line in mc("eval", *names, "-m", "AP", "-f", "csv", "--qrels", qrels).stdout.splitlines()[1:]}
    assert rows == [f"RM3,covid,{alone['RM3']}", f"BM25,covid,{alone['BM25']}", f"NEWS-BM25,news,{alone['NEWS-BM25']}"]
    with warehouse.open(mc.db) as wh:
        each = wh.evaluate_each(["RM3", "NEWS-BM25", "BM25"], ["AP"])
        assert list(each.by_qrels) == ["covid", "news"] and each.left_out == ()
        assert each.value("NEWS-BM25", "map") == wh.evaluate(["NEWS-BM25"], "news", ["AP"]).value("NEWS-BM25", "AP")
        assert [row[:2] for row in each.table().rows] == [("RM3", "covid"), ("BM25", "covid"), ("NEWS-BM25", "news")]
        # every stored run: BM25.dl22 and RM3.dl22, judged by none, left out
        with pytest.raises(UsageError, match=r"^the runs chosen are of several collections \(runs judged by covid: 2, "
                                             r"news: 1\): `wh.evaluate_each\(runs, measures\)` evaluates each"):
            wh.evaluate(["RM3", "NEWS-BM25", "BM25"], measures=["AP"])  # one Evaluation is of one set
        every = wh.evaluate_each(None, "AP")
        assert every.left_out == ("BM25.dl22", "RM3.dl22")
        assert every.notes_left_out == ["2 stored runs left out: no stored qrels set judges a query of theirs "
                                        "(BM25.dl22 and RM3.dl22)"]


# -- 3. the only run chosen is the baseline ---------------------------------------------------------

def test_compare_says_the_run_chosen_is_the_baseline(mc):
    result = mc("compare", "--qrels", "covid", "BM25", "-m", "AP", "--baseline", "BM25")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == f"Error: {BASELINE_ITSELF}\n"
    assert "one run and --baseline" not in result.stderr
    # the advice followed: another run, compared with the baseline
    followed = mc("compare", "--qrels", "covid", "BM25", "RM3", "-m", "AP", "--baseline", "BM25")
    assert followed.exit_code == 0, followed.stderr
    assert "RM3" in followed.stdout and "BM25" in followed.stdout


def test_report_compare_says_so_too(mc, tmp_path):
    result = mc("report", "compare", "--qrels", "covid", "BM25", "--baseline", "BM25", "-o", tmp_path / "c.html")
    assert result.exit_code == 2 and result.stderr == f"Error: {BASELINE_ITSELF}\n"
    assert not (tmp_path / "c.html").exists()


def test_the_runs_a_pattern_left_out_are_said(mc):
    """'BM25*' chose BM25 and BM25.dl22; --qrels covid left BM25.dl22 out, leaving the baseline alone."""
    result = mc("compare", "--qrels", "covid", "BM25*", "-m", "AP", "--baseline", "BM25")
    assert result.exit_code == 2
    assert result.stderr == ("Error: compare needs a run besides the baseline: BM25 is the only run chosen (1 matching "
                             "run left out: no query judged in qrels covid), and it is the baseline itself; name "
                             "another run to compare with it\n")


def test_the_python_api_is_not_told_cli_flags(mc):
    with warehouse.open(mc.db) as wh:
        with pytest.raises(UsageError) as caught:
            wh.compare("BM25", "covid", "AP", baseline="BM25")
    assert str(caught.value) == BASELINE_ITSELF
    assert "--" not in str(caught.value)


def test_one_run_without_a_baseline_is_told_as_before(mc):
    result = mc("compare", "--qrels", "covid", "BM25", "-m", "AP")
    assert result.exit_code == 2
    assert result.stderr == ("Error: compare needs at least two runs (or one run and --baseline): BM25 is the only "
                             "run chosen\n")


def test_irw_runs_says_a_run_named_is_listed_though_the_qrels_judge_none_of_it(mc):
    """`irw runs --qrels news BM25 NEWS-BM25` listed BM25 (a TREC-COVID run) with nothing said, though
    --qrels says "only the runs this stored qrels set judges": a run named outright is kept, as
    every command keeps it, and the listing now says why it is there."""
    result = mc("runs", "--qrels", "news", "BM25", "NEWS-BM25")
    assert result.exit_code == 0, result.stderr
    assert [line.split()[0] for line in result.stdout.splitlines()[2:]] == ["BM25", "NEWS-BM25"]
    assert result.stderr == ("# run BM25 is listed as it was named, but qrels news judges none of its queries (its "
                             "judged_by says which sets do)\n")
    assert mc("runs", "--qrels", "news", "NEWS-BM25").stderr == ""


def test_every_stored_run_judged_by_one_of_two_sets_takes_it(seeded_db, tmp_path):
    """No run chosen: the stored runs are every run, and the one set judging them is taken; a second
    set judging them too makes it the error naming both again."""
    from conftest import qrels_text, write_file

    irw = Cli(seeded_db)
    other = write_file(tmp_path, "other.qrels", qrels_text([("q7", "d1", 1), ("q8", "d2", 1)]))
    assert irw("ingest", "qrels", other, "--name", "other").exit_code == 0
    taken, named = irw("eval", "-m", "AP"), irw("eval", "-m", "AP", "--qrels", "base")
    assert taken.exit_code == named.exit_code == 0, taken.stderr
    assert (taken.stdout, taken.stderr) == (named.stdout, named.stderr)
    assert taken.stderr.startswith("# qrels base; ") and "tagA" in taken.stdout
    copy = write_file(tmp_path, "copy.qrels", qrels_text())
    assert irw("ingest", "qrels", copy, "--name", "base-copy").exit_code == 0
    refused = irw("eval", "-m", "AP")
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.stderr.startswith("Error: name the qrels set with --qrels: this warehouse holds 3 (base, "
                                     "base-copy, other); run tagA (the one stored) is judged by 2 stored qrels sets (base "
                                     "and base-copy): add `--qrels base` or `--qrels base-copy`"), refused.stderr


def test_runs_judged_by_two_versions_of_a_set_are_named_beside_runs_of_another(seeded_db, tmp_path):
    """Two versions of one collection's qrels (base, base-copy) and another collection's set: `irw
    eval` without --qrels said "name the qrels set ... of the 2 stored runs, qrels base judges 1,
    base-copy 1 and other 1", as if eval took one set; and `compare --baseline tagA` spoke of every
    stored run (a walk). Each says which runs, or the baseline, the versions judge."""
    from conftest import qrels_text, run_text, write_file

    irw = Cli(seeded_db)
    for name, rows in (("base-copy", None), ("other", [("q7", "d1", 1), ("q8", "d2", 1)])):
        path = write_file(tmp_path, f"{name}.qrels", qrels_text(rows) if rows else qrels_text())
        assert irw("ingest", "qrels", path, "--name", name).exit_code == 0
    other_run = write_file(tmp_path, "o.run", run_text([("q7", "d1", 1, "1.0"), ("q8", "d9", 1, "1.0")], tag="tagB"))
    assert irw("ingest", "run", other_run).exit_code == 0
    refused = irw("eval", "-m", "AP")
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.stderr == (
        "Error: run tagA is judged by 2 stored qrels sets (base and base-copy: versions of one collection's qrels?), "
        "and a run is evaluated against one: evaluate it with `--qrels base` or `--qrels base-copy`, and the other "
        "runs apart (each against the set judging it)\n")
    followed = irw("eval", "tagA", "-m", "AP", "--qrels", "base-copy")
    assert followed.exit_code == 0, followed.stderr
    apart = irw("eval", "tagB", "-m", "AP")
    assert apart.exit_code == 0 and apart.stderr.startswith("# qrels other; "), apart.stderr
    baseline = irw("compare", "-m", "AP", "--baseline", "tagA")
    assert baseline.exit_code == 2
    assert baseline.stderr == ("Error: the baseline tagA is judged by 2 stored qrels sets (base and base-copy): add "
                               "`--qrels base` or `--qrels base-copy`\n")
