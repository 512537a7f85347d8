"""Significance over very few queries, from a researcher's walk on DL19 cut to 3 queries: the
bootstrap marked 4 of 10 comparisons significant at p 0.0001 (Holm), where no exact test of 3
queries can give a p below 0.25, and the paper table printed the marks with no word; a caption
described a "correction over 0 comparisons" for a test never made, over "1 queries"; and
--permutations 10 was taken, though no p could then be below 1/11."""
from __future__ import annotations

from pathlib import Path

import pytest

import warehouse
from warehouse import reports
from warehouse.evaluation.stats import StatsSettings

from conftest import Cli

RUNS = ("BM25", "BM25_RM3", "REP_LLAMA")
NOTE = ("significant pairs rest on too few queries for any exact test to reach alpha 0.05 (the fewest: 3 queries, "
        "where a sign-flip test's smallest p is 0.25): the bootstrap is optimistic there; --test randomization is "
        "exact over so few")


@pytest.fixture(scope="module")
def few(conformance, tmp_path_factory) -> Cli:
    """DL19's qrels cut to their first 3 queries (q3) and to their first (q1), and three runs."""
    folder = tmp_path_factory.mktemp("few")
    data = conformance / "dl19-passage"
    lines = (data / "qrels.dl19-passage.txt").read_text().splitlines(keepends=True)
    queries = list(dict.fromkeys(line.split()[0] for line in lines))
    irw = Cli(folder / "irw.duckdb")
    for name, count in (("q3", 3), ("q1", 1)):
        (folder / f"{name}.txt").write_text("".join(line for line in lines if line.split()[0] in queries[:count]))
        assert irw("ingest", "qrels", folder / f"{name}.txt", "--name", name).exit_code == 0
    for run in RUNS:
        assert irw("ingest", "run", data / "runs" / f"run.dl19.{run}.txt", "--name", run).exit_code == 0
    return irw


def test_bootstrap_marks_over_three_queries_are_said_optimistic_everywhere_they_show(few, tmp_path):
    compared = few("compare", "-m", "AP", "-m", "nDCG@10", "--baseline", "BM25", "--qrels", "q3", "--test", "bootstrap",
                   "-f", "csv")
    assert compared.exit_code == 0, compared.stderr
    significant = [line for line in compared.stdout.splitlines()[1:] if ",true," in line]
    assert significant, compared.stdout  # the bootstrap's p 0.0001 over 3 queries: the case in hand
    assert f"# {len(significant)} {NOTE}" in compared.stderr.splitlines()
    # the exact test over the same pairs marks none, and is said to need no note
    exact = few("compare", "-m", "AP", "-m", "nDCG@10", "--baseline", "BM25", "--qrels", "q3", "-f", "csv")
    assert ",true," not in exact.stdout and "optimistic" not in exact.stderr

    latex = few("report", "leaderboard", "-m", "AP", "--baseline", "BM25", "--qrels", "q3", "--test", "bootstrap",
                "--format", "latex")
    assert latex.exit_code == 0, latex.stderr
    marks = latex.stdout.count("$^{")
    assert marks and (f"{marks} of the marks {'rests' if marks == 1 else 'rest'} on 3 queries, too few for any exact "
                      "test to reach alpha 0.05: the bootstrap is optimistic there.") in latex.stdout
    with warehouse.open(few.db) as wh:
        board = reports.leaderboard(wh, "q3", ["AP"], baseline="BM25",
                                    stats=StatsSettings(test="bootstrap"))
        assert "optimistic there; --test randomization is exact over so few." in reports.render_leaderboard(board)


def test_over_forty_three_queries_the_bootstrap_needs_no_such_note(conformance, tmp_path):
    from conftest import dl19_cli

    irw = dl19_cli(conformance, tmp_path, RUNS)
    compared = irw("compare", "-m", "AP", "--baseline", "BM25", "--test", "bootstrap", "-f", "csv")
    assert ",true," in compared.stdout and "optimistic" not in compared.stderr


def test_a_caption_says_no_test_was_made_and_counts_one_query(few):
    one_query = few("report", "leaderboard", "--qrels", "q1", "-m", "AP", "--test", "ttest", "--format", "markdown")
    assert one_query.exit_code == 0, one_query.stderr
    assert one_query.stdout.rstrip().endswith(
        "Mean AP over 1 query of qrels q1. No pair was tested for significance: no pair of runs shares two queries or "
        "more to test over. The best value of each measure is in bold.")
    one_run = few("report", "leaderboard", "BM25", "--qrels", "q3", "-m", "AP", "--format", "markdown")
    assert one_run.stdout.rstrip().endswith(
        "Mean AP over 3 queries of qrels q3. No pair was tested for significance: one run. The best value of each "
        "measure is in bold.")


def test_too_few_permutations_are_refused_by_the_command(few):
    refused = few("compare", "-m", "AP", "--qrels", "q3", "--permutations", "10")
    assert refused.exit_code == 2
    assert refused.stderr == ("Error: --permutations 10 gives no p below 1/11 = 0.09091, above alpha 0.05, so no pair "
                              "could be significant (a p equal to alpha is not): give at least 20 (the default is "
                              "10,000)\n")


@pytest.mark.parametrize("test", ["ttest", "bootstrap"])
def test_pairs_over_one_query_the_test_leaves_out_are_named(few, test):
    """A walk: under the t-test (and the bootstrap) a pair over one shared query had a blank p and
    nothing said on stderr; the randomization test's exact p over one query, 1, stands untold."""
    compared = few("compare", "BM25", "REP_LLAMA", "-m", "AP", "--qrels", "q1", "--test", test, "-f", "csv")
    assert compared.exit_code == 0, compared.stderr
    name = {"ttest": "t-test", "bootstrap": "bootstrap"}[test]
    assert f"# not tested (one shared query; the {name} needs two): AP of REP_LLAMA vs BM25" in \
        compared.stderr.splitlines(), compared.stderr
    exact = few("compare", "BM25", "REP_LLAMA", "-m", "AP", "--qrels", "q1", "-f", "csv")
    assert "one shared query" not in exact.stderr and exact.stdout.splitlines()[1].split(",")[9] == "1.0"
