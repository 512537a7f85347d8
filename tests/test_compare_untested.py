"""What `irw compare` says of pairs it does not test (a user-measure author's walk, DL19):

1. With only measures that are not means over queries (GMAP, num_rel_ret, a user measure with
   `aggregate: sum`), every row was blank, the correction line said "over 0 comparisons (every run
   against BM25 x 2 measures)" and the command exited 0: a comparison that tests nothing is now a
   usage error saying what to do. With some such measures among others, the correction counts the
   measures it tested, not every measure chosen.
2. A pair whose values are no number (a measure's NaN) is not tested, yet its row said
   significant false and 0 wins, 0 ties, 0 losses over 43 queries: those cells are now empty, as
   the others of an untested row are.
"""
from __future__ import annotations

import json

import pytest

import warehouse
from conftest import Cli, dl19_with_measure
from warehouse.errors import UsageError

NAN_MEASURE = """-- measure: nanv
-- parameters: none
-- aggregate: mean
select run_id, query_id, case when query_id like '1%' then cast('nan' as double) else 0.5 end as value
from ranked_judged
group by run_id, query_id
"""


@pytest.fixture(scope="module")
def dl19(conformance, tmp_path_factory) -> Cli:
    return dl19_with_measure(conformance, tmp_path_factory.mktemp("compare_untested"), "nanv", NAN_MEASURE)[0]


def test_a_comparison_of_measures_that_are_not_means_is_refused(dl19, tmp_path):
    result = dl19("compare", "BM25_RM3", "--baseline", "BM25", "-m", "GMAP", "-m", "num_rel_ret")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("Error: a comparison tests means over queries, and no measure chosen is one (GMAP, "
                             "NumRelRet): evaluate them instead, or compare on a mean such as AP or nDCG@10\n")
    page = dl19("report", "compare", "BM25_RM3", "--baseline", "BM25", "-m", "GMAP", "-o", tmp_path / "c.html")
    assert page.exit_code == 2 and "the measure chosen is not one (GMAP)" in page.stderr
    assert not (tmp_path / "c.html").exists()
    with warehouse.open(dl19.db) as wh:
        with pytest.raises(UsageError, match="evaluate it instead"):
            wh.compare(["BM25", "BM25_RM3"], "dl19", "GMAP")


def test_the_correction_counts_the_measures_it_tested(dl19):
    result = dl19("compare", "BM25_RM3", "--baseline", "BM25", "-m", "GMAP", "-m", "AP", "-m", "P@10")
    assert result.exit_code == 0, result.stderr
    assert ("# correction: Holm-Bonferroni step-down over 2 comparisons (every run against BM25 x 2 measures)\n"
            in result.stderr), result.stderr
    assert "# not tested (not a mean over queries): GMAP\n" in result.stderr


def test_a_pair_with_values_that_are_no_number_is_neither_significant_nor_counted(dl19):
    with warehouse.open(dl19.db) as wh:
        table = wh.compare(["BM25", "BM25_RM3"], "dl19", ["nanv", "AP"], baseline="BM25").table()
    rows = {row[0]: dict(zip(table.columns, row)) for row in table.rows}
    untested = rows["nanv"]
    assert untested["queries"] == 43
    assert [untested[c] for c in ("p", "significant", "wins", "ties", "losses")] == [None] * 5
    tested = rows["AP"]
    assert tested["significant"] is True and tested["wins"] + tested["ties"] + tested["losses"] == 43


# -- 3. what the reports say of measures that are not means -----------------------------------------

def test_a_comparison_s_paper_table_leaves_out_what_it_did_not_compare(dl19):
    """Its GMAP and NumRelRet columns were all "--" under a caption of "Mean AP, GMAP, NumRelRet"."""
    result = dl19("compare", "BM25_RM3", "--baseline", "BM25", "-m", "AP", "-m", "GMAP", "-m", "num_rel_ret",
                  "-f", "markdown")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == "| | Run | AP |"
    table = result.stdout.split("\n\n")[0]
    assert "GMAP" not in table and " -- " not in table
    assert result.stdout.rstrip().endswith(
        "The best value of each measure is in bold. GMAP, NumRelRet are not means over queries, so not compared (an "
        "evaluation gives their values).")


def test_the_pages_say_which_values_are_not_means(dl19, tmp_path):
    board = dl19("report", "leaderboard", "-m", "AP", "-m", "GMAP", "-m", "num_rel_ret", "-o", tmp_path / "lb.html")
    assert board.exit_code == 0, board.stderr
    assert ("values are means over queries (GMAP: a geometric mean over queries; NumRelRet: a sum over queries), "
            "shown to 4 decimals") in (tmp_path / "lb.html").read_text(encoding="utf-8")
    run = dl19("report", "run", "BM25", "-m", "AP", "-m", "GMAP", "-o", tmp_path / "run.html")
    assert run.exit_code == 0, run.stderr
    assert ("BM25's values are means over its 43 evaluated queries (GMAP: a geometric mean over queries)."
            in (tmp_path / "run.html").read_text(encoding="utf-8"))
    latex = dl19("report", "leaderboard", "-m", "AP", "-m", "num_rel_ret", "-f", "latex")
    assert "over 43 queries of qrels dl19 (NumRelRet: a sum over queries)." in latex.stdout


def test_a_pair_over_one_query_is_not_called_significant_by_the_bootstrap(conformance, tmp_path):
    """Every bootstrap resample of one query is that query: its p was 1/(permutations + 1) whatever
    the difference, so `--test bootstrap` called REP_LLAMA significantly better than BM25 on one
    query (p 0.0001), and a leaderboard against a one-query baseline marked every run."""
    data = conformance / "dl19-passage"
    irw = Cli(tmp_path / "one.duckdb")
    assert irw("ingest", "qrels", data / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    for run in ("BM25", "REP_LLAMA"):
        lines = [line for line in (data / "runs" / f"run.dl19.{run}.txt").read_text().splitlines(keepends=True)
                 if line.split()[0] == "104861"]
        (tmp_path / f"{run}.one.txt").write_text("".join(lines))
        assert irw("ingest", "run", tmp_path / f"{run}.one.txt", "--name", run).exit_code == 0
    compared = irw("compare", "REP_LLAMA", "--baseline", "BM25", "-m", "AP", "--test", "bootstrap", "-f", "csv")
    assert compared.exit_code == 0, compared.stderr
    header, row = compared.stdout.splitlines()
    cells = dict(zip(header.split(","), row.split(",")))
    assert (cells["queries"], round(float(cells["diff"]), 4)) == ("1", 0.5552), cells
    assert (cells["ci_low"], cells["ci_high"], cells["p"], cells["p_adjusted"], cells["significant"]) == \
        ("", "", "", "", ""), cells
    board = irw("report", "leaderboard", "--qrels", "dl19", "-m", "AP", "--test", "bootstrap", "--baseline", "BM25",
                "-f", "json")
    assert board.exit_code == 0, board.stderr
    llama = next(row for row in json.loads(board.stdout) if row["run"] == "REP_LLAMA")
    assert (llama["p_adjusted_AP"], llama["significant"]) == (None, None), llama
