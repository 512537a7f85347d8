"""Significance over many comparisons, from a walk of a 10,000-run warehouse: the leaderboard's
30,000 comparisons (10,000 runs x 3 measures) corrected by Holm needed a p below 1.7e-06, where the
randomization test's 10,000 permutations give none below 1e-04, so no run was marked (one 0.66 below
the top run neither), the page said an unmarked run was not significantly different, and history
flagged none of 9,700 steps. Each report now says no comparison can be significant, and what to
give instead."""
from __future__ import annotations

import pytest

import warehouse
from warehouse import reports
from warehouse.evaluation.stats import StatsSettings, unreachable_said

from conftest import Cli

RUNS = ("BM25", "BM25_RM3", "D_BERT_KD_TASB", "OPEN_AI_ADA2", "REP_LLAMA", "SPLADE_P_P_ENSEMBLE_DISTIL")


def test_the_walk_s_board_is_said_to_be_unable_to_mark_any_run():
    assert unreachable_said(30_000, StatsSettings()) == (
        "no comparison can be significant: 30,000 comparisons corrected together (Holm-Bonferroni step-down) need a p "
        "below alpha / 30,000 = 1.7e-06, and the randomization test with 10,000 permutations gives none below "
        "1/10,001 = 0.0001: give --permutations 600,000 or more, --correction bh (a false discovery rate), --test "
        "ttest, or compare fewer runs or measures")
    assert unreachable_said(500, StatsSettings()) == ""  # 500 / 10,001 is below 0.05
    assert "give --permutations 10,020 or more" in unreachable_said(501, StatsSettings())
    # the floor is the bootstrap's too, and no t-test, bh or uncorrected family has one
    assert "the bootstrap with 10,000 resamples" in unreachable_said(30_000, StatsSettings(test="bootstrap"))
    for settings in (StatsSettings(test="ttest"), StatsSettings(correction="bh"), StatsSettings(correction="none")):
        assert unreachable_said(30_000, settings) == ""
    # what it says to give is enough: one permutation fewer is not
    assert unreachable_said(501, StatsSettings(permutations=10_000)) and not unreachable_said(
        501, StatsSettings(permutations=10_020))


@pytest.fixture(scope="module")
def dl19(conformance, tmp_path_factory) -> Cli:
    """The six DL19 runs, each a month's run of one system `dense` (history's steps) too."""
    folder = tmp_path_factory.mktemp("many")
    data = conformance / "dl19-passage"
    irw = Cli(folder / "irw.duckdb")
    assert irw("ingest", "qrels", data / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    for month, run in enumerate(RUNS, 1):
        result = irw("ingest", "run", data / "runs" / f"run.dl19.{run}.txt", "--name", run, "--system", "dense",
                     "--date", f"2026-{month:02d}-01")
        assert result.exit_code == 0, result.stderr
    return irw


def test_each_report_says_no_comparison_can_be_significant_where_none_can(dl19, tmp_path):
    # 5 runs against the top one x 3 measures: 15 comparisons need p < 0.0033; 100 permutations give 0.0099
    said = ("# no comparison can be significant: 15 comparisons corrected together (Holm-Bonferroni step-down) need a "
            "p below alpha / 15 = 0.0033, and the randomization test with 100 permutations gives none below 1/101 = "
            "0.0099: give --permutations 300 or more, --correction bh (a false discovery rate), --test ttest, or "
            "compare fewer runs or measures")
    board = dl19("report", "leaderboard", "-m", "AP", "-m", "nDCG@10", "-m", "P@10", "--permutations", "100", "-f", "csv")
    assert board.exit_code == 0 and said in board.stderr.splitlines(), board.stderr
    page = dl19("report", "leaderboard", "-m", "AP", "-m", "nDCG@10", "-m", "P@10", "--permutations", "100",
                "-o", tmp_path / "board.html", "--no-run-pages")
    assert page.exit_code == 0 and said in page.stderr.splitlines(), page.stderr
    html = (tmp_path / "board.html").read_text()
    assert "but <strong>no comparison can be significant: 15 comparisons" in html
    assert "a run without a mark is not significantly different" not in html
    # with 300 permutations a mark can be made, and nothing is said
    enough = dl19("report", "leaderboard", "-m", "AP", "-m", "nDCG@10", "-m", "P@10", "--permutations", "300", "-f", "csv")
    assert "no comparison can be significant" not in enough.stderr and " worse" in enough.stdout

    pairs = dl19("compare", "-m", "AP", "--permutations", "100", "-f", "csv")  # every pair: 15
    assert pairs.exit_code == 0 and said in pairs.stderr.splitlines(), pairs.stderr

    # history: 5 steps of system dense need p < 0.01; 50 permutations give none below 1/51
    steps = dl19("report", "history", "-m", "AP", "--permutations", "50", "-f", "csv")
    assert steps.exit_code == 0, steps.stderr
    assert ("# no comparison can be significant: 5 comparisons corrected together (Holm-Bonferroni step-down) need a p "
            "below alpha / 5 = 0.01, and the randomization test with 50 permutations gives none below 1/51 = 0.02: give "
            "--permutations 100 or more") in steps.stderr, steps.stderr
    with warehouse.open(dl19.db) as wh:
        history = reports.history(wh, "dl19", ["AP"], stats=StatsSettings(permutations=50))
        assert "No run is flagged: no comparison can be significant: 5 comparisons" in reports.render_history(history)
        assert not reports.history(wh, "dl19", ["AP"]).unreachable


def test_every_pair_of_too_many_runs_is_refused_before_any_is_tested(dl19, monkeypatch):
    """The walk's `irw compare -m AP` over 10,000 runs set out to test 49,995,000 pairs and held 16 GB
    after two minutes (irw serve's compare page without run= too): above MAX_ALL_PAIRS it is
    refused, saying what to name. Here the limit is lowered to 10, below DL19's 15 pairs."""
    from warehouse.reports import pairs

    monkeypatch.setattr(pairs, "MAX_ALL_PAIRS", 10)
    refused = dl19("compare", "-m", "AP")
    assert refused.exit_code == 2 and refused.stderr == (
        "Error: compare without --baseline tests every pair of the 6 runs chosen: 15 pairs, more than the 10 irw "
        "tests in one comparison; name a --baseline (each run against it: 5 pairs), or fewer runs (names, a pattern, "
        "--system)\n")
    assert dl19("compare", "-m", "AP", "--baseline", "BM25").exit_code == 0
    assert dl19("compare", "BM25*", "REP_LLAMA", "-m", "AP").exit_code == 0  # 3 runs, 3 pairs
    with warehouse.open(dl19.db) as wh, pytest.raises(warehouse.UsageError, match="name a baseline="):
        wh.compare(None, "dl19", ["AP"])
