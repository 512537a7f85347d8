"""Gain maps are read as trec_eval reads them: its table of gains sorted as its qsort leaves it.

trec_eval's gain measures (ndcg, ndcg_rel, Rndcg, G) sort a query's (grade, gain) table with a
comparator that returns the difference of two gains converted to int, so gains less than 1 apart
compare equal and keep the order glibc's merge sort leaves them in. trec_eval's own help example,
`ndcg.1=3.5,2=9.0,4=7.0`, then ranks grade 3 (gain 3) above grade 1 (gain 3.5) in the ideal ranking
of any query judging both, and `ndcg.1=0.5,2=1,3=1.5` ranks grade 1 above grades 2 and 3. irw
printed the mathematically ideal numbers instead (DL19 BM25: 0.4184 and 0.4602 for trec_eval's
0.4195 and 0.6159).

The expected lines below were printed by trec_eval (its library as pytrec-eval-terrier 0.5.11
builds it, linked to a main following trec_eval.c, glibc 2.36) for the DL19 runs of
../shared/conformance: `trec_eval -q -m ndcg.1=3.5,2=9.0,4=7.0 -m ndcg.1=0.5,2=1,3=1.5
-m Rndcg.1=3.5,2=9.0,4=7.0 -m G.1=0.5,2=1,3=1.5 -m ndcg_rel.3=2.5 QRELS RUN` (176 lines each; the
second ndcg list is not read: trec_eval takes a family's first list). Their SHA-256 is kept, and
their summary lines.
"""
from __future__ import annotations

import hashlib

import pytest

import warehouse
from warehouse.evaluation.gain_order import gain_table, merge_sort

from conftest import dl19_trec_eval

MEASURES = ["ndcg.1=3.5,2=9.0,4=7.0", "ndcg.1=0.5,2=1,3=1.5", "Rndcg.1=3.5,2=9.0,4=7.0", "G.1=0.5,2=1,3=1.5",
            "ndcg_rel.3=2.5"]
EXPECTED = {
    "BM25": ("3123d44d466e38105129e090b1f5c9fe576e05b054682b6d3ebe5d0912284202", {
        "G_1=0.5,2=1,3=1.5": "0.2959", "ndcg_1=3.5,2=9.0,4=7.0": "0.4195", "ndcg_rel_3=2.5": "0.5044",
        "Rndcg_1=3.5,2=9.0,4=7.0": "0.3885"}),
    "REP_LLAMA": ("3cd9ef3a47a18110dd2bce01fe357595d6f7a4f862cadf1be071741f89c8cf88", {
        "G_1=0.5,2=1,3=1.5": "0.5332", "ndcg_1=3.5,2=9.0,4=7.0": "0.7042", "ndcg_rel_3=2.5": "0.7779",
        "Rndcg_1=3.5,2=9.0,4=7.0": "0.5887"}),
}


def test_the_table_of_trec_eval_s_help_example_sorts_as_its_qsort_leaves_it():
    # pairs first in the order given, then the grades no pair names; 3.5 and 3 compare equal
    assert gain_table([(1, 3.5), (2, 9.0), (4, 7.0)], 4) == [
        (0, 0.0, True), (1, 3.5, True), (3, 3.0, True), (4, 7.0, False), (2, 9.0, True)]
    # 0.5 and 0 compare equal, as do 0.5 and 1: grade 1 stays below grade 0
    assert [grade for grade, _, _ in gain_table([(1, 0.5), (2, 1.0), (3, 1.5)], 4)] == [1, 0, 2, 3]
    # the grades as gains, and gains whole numbers apart, sort as expected
    assert gain_table([], 3) == [(0, 0.0, True), (1, 1.0, True), (2, 2.0, True)]
    assert [gain for _, gain, _ in gain_table([(1, 3.0), (2, 9.0)], 4)] == [0.0, 3.0, 3.0, 9.0]
    # the first pair naming a grade counts its documents; a grade the query lacks counts none
    assert gain_table([(1, 2.0), (1, 5.0), (7, 1.0)], 2) == [(0, 0.0, True), (7, 1.0, False), (1, 2.0, True),
                                                             (1, 5.0, False)]


def test_the_merge_keeps_the_left_of_two_that_compare_equal():
    items = [("a", 1), ("b", 0), ("c", 1), ("d", 0)]
    assert merge_sort(items, lambda x, y: 0) == items
    assert merge_sort(items, lambda x, y: x[1] - y[1]) == [("b", 0), ("d", 0), ("a", 1), ("c", 1)]


def _cases():
    return [pytest.param(run, id=run) for run in EXPECTED]


@pytest.mark.parametrize("run", _cases())
def test_gain_maps_print_trec_eval_s_bytes(conformance, run):
    text = dl19_trec_eval(conformance, "-q", *(a for m in MEASURES for a in ("-m", m)), run=run)
    digest, summary = EXPECTED[run]
    printed = {line.split("\t")[0].strip(): line.split("\t")[2] for line in text.splitlines() if "\tall\t" in line}
    assert printed == summary
    assert len(text.splitlines()) == 176 and hashlib.sha256(text.encode()).hexdigest() == digest


def test_a_stored_evaluation_reads_gain_maps_as_trec_eval_does(conformance, tmp_path):
    folder = conformance / "dl19-passage"
    wh = warehouse.open(tmp_path / "w.duckdb")
    wh.ingest_qrels(folder / "qrels.dl19-passage.txt", name="dl19")
    wh.ingest_run(folder / "runs" / "run.dl19.BM25.txt", name="BM25")
    result = wh.evaluate(None, "dl19", ["ndcg.1=3.5,2=9.0,4=7.0", "ndcg.1=0.5,2=1,3=1.5", "G.1=0.5,2=1,3=1.5"])
    values = {row[1]: row[2] for row in result.summary.rows}
    assert {name: f"{value:.4f}" for name, value in values.items()} == {
        # a measure's key writes each number one way (9.0 as 9), as typed it stays in trec-eval's output
        "ndcg_1=3.5,2=9,4=7": "0.4195", "ndcg_1=0.5,2=1,3=1.5": "0.6159", "G_1=0.5,2=1,3=1.5": "0.2959"}
    wh.close()


def test_a_gain_for_unjudged_documents_is_refused_unless_judged_only(conformance):
    """trec_eval looks up grade -1 for a retrieved document its qrels lack (ndcg.-1=0.5,2=3: 0.6318
    on DL19 BM25), which irw's gain tables do not hold; with -J those documents are gone in both
    (trec_eval: 0.4682)."""
    with pytest.raises(warehouse.MeasureError, match=r"ndcg\.-1=0\.5,2=3: grade -1 is how trec_eval looks up "
                                                     r"retrieved documents the qrels do not judge.*give -J"):
        dl19_trec_eval(conformance, "-m", "ndcg.-1=0.5,2=3")
    assert dl19_trec_eval(conformance, "-J", "-m", "ndcg.-1=0.5,2=3") == "ndcg_-1=0.5,2=3       \tall\t0.4682\n"
    assert dl19_trec_eval(conformance, "-m", "ndcg.-1=0,2=3") == dl19_trec_eval(conformance, "-m", "ndcg.2=3").replace(
        "ndcg_2=3      ", "ndcg_-1=0,2=3 ")


@pytest.mark.postgres
def test_gain_maps_out_of_order_on_postgresql_are_duckdb_s(conformance, postgres_url):
    """Together these put a ranking's gain above its ideal's in some scheme, where G's log2 is of 1
    or less: PostgreSQL raised 'division by zero' on the other measures' schemes, which G's file
    read before leaving them out. Each query's value equals the file evaluation's."""
    folder = conformance / "dl19-passage"
    names = [*MEASURES, "11pt_avg.1.0,0.9,0.8,0.7,0.6,0.5,0.4,0.3,0.2,0.1,0.0", "ndcg", "G"]
    qrels, run = folder / "qrels.dl19-passage.txt", folder / "runs" / "run.dl19.BM25.txt"
    on_files = warehouse.evaluate_files(qrels, {"BM25": run}, names, per_query=True)
    with warehouse.open(postgres_url) as wh:
        wh.ingest_qrels(qrels, "dl19")
        wh.ingest_run(run, "BM25")
        stored = wh.evaluate("BM25", "dl19", names, per_query=True)
    values = {(q, m): v for _, q, m, v in stored.per_query.rows}
    assert values == pytest.approx({(q, m): v for _, q, m, v in on_files.per_query.rows}, rel=1e-12)
    shown = {m: f"{v:.4f}" for _, m, v, *_ in stored.summary.rows if m.startswith("G_")}
    assert shown == {"G_1=0.5,2=1,3=1.5": "0.2959"}


@pytest.mark.parametrize("spec", ["ndcg.1=0.5,2=1", "G.1=3", "Rndcg.2=9", "ndcg_rel.3=2", "utility.2,-1,0,0",
                                  "11pt_avg.0.2,0.5", "rbp.p=0.95"])
def test_a_measure_named_with_its_parameter_string_reads_back_from_its_name(spec):
    """ndcg_1=0.5,2=1 is how irw names and stores ndcg.1=0.5,2=1 (trec_eval's printed name): reports
    read measures back by name, and `irw report leaderboard -m 'ndcg.1=0.5,2=1'` failed writing its
    run pages with "unknown measure 'ndcg_1=0.5,2=1'"."""
    from warehouse.evaluation.measures import parse

    (measure,) = parse(spec)
    assert parse(measure.name) == [measure]


def test_a_leaderboard_with_run_pages_shows_measures_named_with_their_parameters(conformance, tmp_path):
    folder = conformance / "dl19-passage"
    wh = warehouse.open(tmp_path / "w.duckdb")
    wh.ingest_qrels(folder / "qrels.dl19-passage.txt", name="dl19")
    for run in ("BM25", "REP_LLAMA"):
        wh.ingest_run(folder / "runs" / f"run.dl19.{run}.txt", name=run)
    from warehouse.reports.page_leaderboard import write_leaderboard

    written = write_leaderboard(wh, "dl19", tmp_path / "site" / "dl19.html",
                                ["ndcg.1=0.5,2=1,3=1.5", "utility.2,-1,0,0", "nDCG@10"])
    wh.close()
    assert len(written.paths) == 3  # the board and both run pages
    board = (tmp_path / "site" / "dl19.html").read_text()
    assert "ndcg_1=0.5,2=1,3=1.5" in board and "0.6159" in board and "1.0092" in board  # trec_eval's values
    page = next((tmp_path / "site" / "dl19_runs").glob("*BM25*.html")).read_text()
    assert "utility_2,-1,0,0" in page and "0.6159" in page
