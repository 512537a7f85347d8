"""Reports under settings they add measures for, and paper captions over runs of different query
counts: bugs a user walk found, each checked against trec_eval's own outputs or irw eval."""
from __future__ import annotations

import csv
import io
import json
import re

import pytest

import warehouse
from warehouse import reports
from warehouse.evaluation.settings import Settings
from warehouse.formats.formatting import format_number

from conftest import Cli, dl19_expected

SYSTEMS = ("BM25", "BM25_RM3", "SPLADE_P_P_ENSEMBLE_DISTIL")
MEASURES = {"AP": "map", "P@10": "P_10", "nDCG@10": "ndcg_cut_10"}  # irw's name -> trec_eval's


def rows_of(result) -> list[dict]:
    assert result.exit_code == 0, result.stderr
    return list(csv.DictReader(io.StringIO(result.stdout)))


@pytest.fixture
def covid(tmp_path, conformance) -> Cli:
    """The multi-collection covid qrels and its three runs, each named by its system."""
    folder = conformance / "multi-collection"
    irw = Cli(tmp_path / "irw.duckdb")
    assert irw("ingest", "qrels", folder / "qrels" / "qrels.beir-v1.0.0-trec-covid.test.txt",
               "--name", "covid").exit_code == 0
    for system in SYSTEMS:
        result = irw("ingest", "run", folder / "runs" / system / "trec_results_covid.txt", "--name", system)
        assert result.exit_code == 0, result.stderr
    return irw


def covid_expected(conformance) -> dict[tuple[str, str], str]:
    """trec_eval -M 10 -J -m all_trec -q of BM25 on covid: (trec_eval name, query or 'all') -> value."""
    path = conformance / "multi-collection" / "expected" / "covid.BM25.all_trec.M10.J.q.v9.txt"
    values = {}
    for line in path.read_text().splitlines():
        name, query, value = (field.strip() for field in line.split("\t"))
        values[(name, query)] = value
    return values


def test_reports_take_depth_and_judged_only_together_and_leave_the_tie_range_out(covid, conformance, tmp_path):
    """-M 10 -J: the leaderboard and run page refused AP(ties=min/max), measures the user never
    named (the reports add them for the tie-order range); now they leave the range out and say so."""
    expected = covid_expected(conformance)
    settings = ["--qrels", "covid", "-M", "10", "-J"]
    measures = [a for m in MEASURES for a in ("-m", m)]
    board = {row["run"]: row for row in rows_of(covid("report", "leaderboard", *settings, *measures,
                                                      "--format", "csv"))}
    assert sorted(board) == sorted(SYSTEMS)
    for name, trec_name in MEASURES.items():  # trec_eval's numbers, as it prints them
        assert format_number(float(board["BM25"][name])) == expected[(trec_name, "all")], name
    evaluated = json.loads(covid("eval", *settings, *measures, "--format", "json").stdout)
    for row in evaluated:  # every run as irw eval gives it under the same settings
        for name in MEASURES:
            assert float(board[row["run"]][name]) == pytest.approx(row[name], abs=1e-12), (row["run"], name)
    assert all(row["AP_tie_low"] == "" and row["AP_tie_high"] == "" for row in board.values())
    # -M alone still allows the range: it is left out only where the settings refuse it
    depth_only = rows_of(covid("report", "leaderboard", "--qrels", "covid", "-M", "10", "-m", "AP", "--format", "csv"))
    assert all(row["AP_tie_low"] != "" for row in depth_only)

    per_query = rows_of(covid("report", "run", "BM25", *settings, "-m", "AP", "--format", "csv"))
    assert len(per_query) == 50
    for row in per_query:
        assert format_number(float(row["AP"])) == expected[("map", row["query"])], row["query"]

    page = tmp_path / "covid.html"
    result = covid("report", "leaderboard", *settings, "-m", "AP", "-o", page)
    assert result.exit_code == 0, result.stderr
    note = "The range of AP over the orders of tied documents is not shown: with -M and -J together it is undefined"
    assert note in page.read_text(encoding="utf-8")
    assert note in (tmp_path / "covid_runs" / "BM25.html").read_text(encoding="utf-8")
    single = covid("report", "run", "BM25", *settings, "-m", "AP", "-o", tmp_path / "bm25.html")
    assert single.exit_code == 0, single.stderr
    assert note in (tmp_path / "bm25.html").read_text(encoding="utf-8")

    # the served leaderboard's pages (irw serve) build the board the same way
    with warehouse.open(covid.db) as wh:
        served = reports.leaderboard_page(wh, "covid", ["AP"], settings=Settings(depth=10, judged_only=True))
    assert served.board.ties_note.startswith("The range of AP")
    assert {row.run: format_number(row.cells[0].value) for row in served.board.rows}["BM25"] == expected[("map", "all")]


@pytest.fixture
def dl19_half(tmp_path, conformance) -> Cli:
    """DL19's BM25 run (43 queries) and REP_LLAMA's run cut to its queries below 500000 (21)."""
    folder = conformance / "dl19-passage"
    irw = Cli(tmp_path / "irw.duckdb")
    irw("ingest", "qrels", folder / "qrels.dl19-passage.txt", "--name", "dl19")
    irw("ingest", "run", folder / "runs" / "run.dl19.BM25.txt", "--name", "bm25")
    lines = (folder / "runs" / "run.dl19.REP_LLAMA.txt").read_text().splitlines(keepends=True)
    (tmp_path / "half.txt").write_text("".join(line for line in lines if int(line.split()[0]) < 500000))
    result = irw("ingest", "run", tmp_path / "half.txt", "--name", "half")
    assert result.exit_code == 0, result.stderr
    return irw


@pytest.mark.parametrize("fmt", ["markdown", "latex"])
def test_the_leaderboard_caption_counts_each_runs_own_queries(dl19_half, conformance, fmt):
    """Each mean of the leaderboard's paper table is over its run's own queries (bm25 43, half 21):
    the caption said 'Mean AP over 21 queries', the queries the tests share. Where every run has
    the same queries, the caption is as it was."""
    counts = {row["run"]: int(row["queries"]) for row in rows_of(dl19_half("report", "leaderboard", "-m", "AP",
                                                                          "--format", "csv"))}
    assert counts == {"bm25": 43, "half": 21}
    result = dl19_half("report", "leaderboard", "-m", "AP", "--format", fmt)
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "over 21 queries of qrels" not in text
    assert "Mean AP over each run's own queries (21-43 queries; each test over the 21 queries both runs have) " \
           "of qrels dl19." in text
    dl19_half("ingest", "run", conformance / "dl19-passage" / "runs" / "run.dl19.REP_LLAMA.txt", "--name", "full")
    same = dl19_half("report", "leaderboard", "bm25", "full", "-m", "AP", "--format", fmt)
    assert same.exit_code == 0, same.stderr
    assert "Mean AP over 43 queries of qrels dl19. A superscript letter" in " ".join(same.stdout.split())



def test_a_comparison_s_paper_table_shows_each_run_s_own_mean_in_any_order(dl19_half, conformance):
    """A walk: `irw compare BM25 PART REP_LLAMA -f markdown` printed each run's mean over the queries
    of the first pair it was in (REP_LLAMA 0.6969 beside a run of 20 queries, 0.7384 named first):
    the same runs in another order printed other numbers. Each mean is its run's own, irw eval's."""
    dl19_half("ingest", "run", conformance / "dl19-passage" / "runs" / "run.dl19.REP_LLAMA.txt", "--name", "full")
    means = {row["run"]: row["AP"] for row in rows_of(dl19_half("eval", "bm25", "half", "full", "-m", "AP",
                                                                 "--format", "csv"))}
    for order in (["bm25", "half", "full"], ["full", "half", "bm25"], ["half", "full", "bm25"]):
        result = dl19_half("compare", *order, "-m", "AP", "--format", "markdown")
        assert result.exit_code == 0, result.stderr
        rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in result.stdout.splitlines()
                if line.startswith("| ")]
        cells = {row[1]: re.search(r"\d\.\d{4}", row[2]).group(0) for row in rows if row[1] in means}
        assert cells == {run: f"{float(value):.4f}" for run, value in means.items()}, (order, result.stdout)
        assert "Mean AP over each run's own queries (21-43 queries; each test over the 21-43 queries both runs " \
               "have) of qrels dl19." in " ".join(result.stdout.split())
    # runs of the same queries: the tests' means, as before
    same = dl19_half("compare", "bm25", "full", "-m", "AP", "--format", "markdown")
    assert "Mean AP over 43 queries of qrels dl19. A superscript letter" in \
        " ".join(same.stdout.split()), same.stdout


@pytest.mark.parametrize("measure, level", [("AP(rel=2)", 2), ("AP", 1)])
def test_a_run_page_counts_its_query_s_relevant_documents_at_its_measure_s_level(dl19_half, conformance, tmp_path,
                                                                                 measure, level):
    """A report walk: a page choosing its query by AP(rel=2) listed every document of grade 1 and up as
    relevant (110 where trec_eval -l 2 counts 5): the count and the list are at the measure's level."""
    page = tmp_path / "bm25.html"
    result = dl19_half("report", "run", "bm25", "-m", measure, "-o", page)
    assert result.exit_code == 0, result.stderr
    text = " ".join(page.read_text().split())
    query, count = re.search(r"Query (\d+): [^<]*?(\d+) relevant documents", text).groups()
    assert count == dl19_expected(conformance, "BM25", level)[("num_rel", query)], (query, count)
    said = "(grade &gt;= 2, as AP(rel=2) reads them)"
    assert (said in text) == (level == 2)

def test_the_history_follows_one_measure_and_says_so_when_given_several(covid):
    """`report history -m nDCG@10 -m AP` charted AP, the last, where every other report takes the
    first -m as primary; reports.history(wh, qrels, [a, b]) was an AttributeError."""
    result = covid("report", "history", "--qrels", "covid", "-m", "nDCG@10", "-m", "AP", "--format", "csv")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == ("Error: the history follows one measure, and 2 were given (nDCG@10, AP): name one "
                             "(-m nDCG@10)\n")
    header = covid("report", "history", "--qrels", "covid", "-m", "nDCG@10", "--format", "csv").stdout.splitlines()[0]
    assert header.split(",")[3] == "nDCG@10"
    with warehouse.open(covid.db) as wh:
        assert reports.history(wh, "covid", ["P@10"]).table().columns[3] == "P@10"
        with pytest.raises(warehouse.UsageError, match="the history follows one measure, and 2 were given"):
            reports.history(wh, "covid", ["P@10", "AP"])


def test_a_report_in_any_format_is_written_by_o_and_compare_takes_every_run_by_default(covid, tmp_path):
    """`report leaderboard --format csv -o board.csv` was "-o writes HTML" (exit 2), where `irw sql`
    writes any format to -o; `report compare` required run names, where `irw compare` and the
    docs (every stored run by default) do not."""
    printed = covid("report", "leaderboard", "--qrels", "covid", "-m", "AP", "--format", "csv")
    written = covid("report", "leaderboard", "--qrels", "covid", "-m", "AP", "--format", "csv",
                    "-o", tmp_path / "board.csv")
    assert written.exit_code == 0 and written.stdout == "" and f"wrote {tmp_path / 'board.csv'}" in written.stderr
    assert (tmp_path / "board.csv").read_text() == printed.stdout and len(rows_of(printed)) == len(SYSTEMS)
    latex = covid("report", "leaderboard", "--qrels", "covid", "-m", "AP", "--format", "latex", "-o", "-")
    assert latex.exit_code == 0 and latex.stdout.startswith(r"\begin{table}")
    every = covid("report", "compare", "--qrels", "covid", "-m", "AP", "--format", "csv")
    named = covid("report", "compare", *SYSTEMS, "--qrels", "covid", "-m", "AP", "--format", "csv")
    assert every.exit_code == 0 and every.stdout == named.stdout and len(rows_of(every)) == 3  # every pair
    page = covid("report", "compare", "--qrels", "covid", "-m", "AP", "-o", tmp_path / "compare.html")
    assert page.exit_code == 0 and (tmp_path / "compare.html").read_text().startswith("<!DOCTYPE html>")
