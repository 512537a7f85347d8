"""HTML reports: numbers checked against `irw eval` and scipy, golden files, escaping, self-containment.

Golden files (tests/golden/*.html) hold the reports of the demo data. They were generated once and
read by hand (in a browser and as screenshots); regenerate them with IRW_UPDATE_GOLDEN=1 after a
deliberate change, and look at the diff before committing it.
"""
from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import pytest
from typer.testing import CliRunner

import warehouse
from warehouse import reports
from warehouse.commands.irw import app
from warehouse.commands.demo import run_demo
from warehouse.evaluation.evaluator import Evaluator
from warehouse.formats.formatting import format_number
from warehouse.evaluation.stats import StatsSettings

import scipy.stats as scipy_stats  # a declared test dependency (pyproject [test]): never skipped
from conftest import under_ci

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("IRW_UPDATE_GOLDEN") == "1"
MEASURES = ["AP", "nDCG@10", "P@10"]
RUNS = ["bm25", "bm25-rm3", "dense", "rerank", "random", "bm25-trunc"]


# -- fixtures ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """`irw demo` in a temporary folder: the warehouse, the leaderboard, run pages and history."""
    folder = tmp_path_factory.mktemp("reports") / "demo"
    run_demo(folder)
    return folder


@pytest.fixture
def db(demo, tmp_path):
    copy = tmp_path / "irw.duckdb"
    shutil.copyfile(demo / "irw.duckdb", copy)
    return copy


def irw(*args, db=None):
    argv = [str(a) for a in args] + (["--db", str(db)] if db else [])
    return CliRunner().invoke(app, argv, catch_exceptions=False)


def eval_json(db, *args):
    result = irw("eval", "--qrels", "sample", *args, "--format", "json", db=db)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


# -- reading HTML ----------------------------------------------------------------------------------
class Tables(HTMLParser):
    """Every <table>: its class, header texts and rows of (text, attributes) cells."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []
        self._stack: list[dict] = []
        self._cell: list | None = None
        self._row: list | None = None
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self._stack.append({"class": attrs.get("class", ""), "head": [], "rows": []})
        elif tag == "tr" and self._stack:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = ["", attrs, tag]
        elif tag in ("sup", "div") and self._cell is not None:
            self._skip += 1
            self._cell[1].setdefault("_" + tag, "")

    def handle_endtag(self, tag):
        if tag in ("sup", "div") and self._skip:
            self._skip -= 1
        elif tag in ("td", "th") and self._cell is not None:
            text, attrs, kind = self._cell
            self._row.append((" ".join(text.split()), attrs, kind))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            table = self._stack[-1]
            if all(kind == "th" for _, _, kind in self._row):
                table["head"] = [text for text, _, _ in self._row]
            else:
                table["rows"].append([(text, attrs) for text, attrs, _ in self._row])
            self._row = None
        elif tag == "table" and self._stack:
            self.tables.append(self._stack.pop())

    def handle_data(self, data):
        if self._cell is not None:
            if self._skip:
                key = "_sup" if "_sup" in self._cell[1] else "_div"
                self._cell[1][key] = self._cell[1].get(key, "") + data
            else:
                self._cell[0] += data


def tables(html: str) -> list[dict]:
    parser = Tables()
    parser.feed(html)
    return parser.tables


def table_with(html: str, css: str) -> dict:
    return next(t for t in tables(html) if css in t["class"].split())


def as_dicts(table: dict) -> list[dict]:
    return [{h: cell for h, cell in zip(table["head"], row)} for row in table["rows"]]


# -- golden files ------------------------------------------------------------------------------------
def golden_pages(demo: Path) -> dict[str, str]:
    """The reports of the demo data: what `irw demo` wrote, plus a compare page."""
    with warehouse.open(demo / "irw.duckdb") as wh:
        compare = reports.render_compare_page(reports.compare_page(wh, ["bm25-rm3", "bm25-trunc"], "sample",
                                                                   baseline="bm25"))
    return {
        "leaderboard.html": (demo / "leaderboard.html").read_text(encoding="utf-8"),
        "run-bm25-trunc.html": (demo / "leaderboard_runs" / "bm25-trunc.html").read_text(encoding="utf-8"),
        "history.html": (demo / "history.html").read_text(encoding="utf-8"),
        "compare.html": compare,
    }


def test_reports_of_the_demo_data_match_the_golden_files(demo):
    if UPDATE and under_ci():  # regenerating would make the check pass by definition: never in CI
        pytest.fail("IRW_UPDATE_GOLDEN=1 is refused under CI: golden pages are regenerated by hand and "
                    "checked by eye, then committed", pytrace=False)
    mismatches = []
    for name, html in golden_pages(demo).items():
        path = GOLDEN / name
        if UPDATE:
            path.write_text(html, encoding="utf-8", newline="\n")
            continue
        assert path.is_file(), f"no golden file {path}; generate with IRW_UPDATE_GOLDEN=1 and check it by hand"
        expected = path.read_text(encoding="utf-8")
        if html != expected:
            diff = difflib.unified_diff(expected.splitlines(), html.splitlines(), f"golden/{name}", name, lineterm="",
                                        n=1)
            mismatches.append("\n".join(list(diff)[:40]))
    assert not mismatches, "reports differ from tests/golden (IRW_UPDATE_GOLDEN=1 regenerates):\n" + \
        "\n\n".join(mismatches)


def test_the_same_inputs_give_the_same_bytes(demo, db, tmp_path):
    first = (demo / "leaderboard.html").read_bytes()
    # scores already stored: the report reads them and must not change a byte
    result = irw("report", "leaderboard", "--qrels", "sample", "-o", tmp_path / "again" / "leaderboard.html", db=db)
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "again" / "leaderboard.html").read_bytes() == first
    for run in RUNS:
        assert (tmp_path / "again" / "leaderboard_runs" / f"{run}.html").read_bytes() == (demo / "leaderboard_runs" / f"{run}.html").read_bytes()
    # a second demo in another folder (scores computed afresh) writes the same pages
    other = tmp_path / "elsewhere"
    run_demo(other)
    for name in ["leaderboard.html", "history.html", "leaderboard_runs/bm25.html", "leaderboard_runs/rerank.html"]:
        assert (other / name).read_bytes() == (demo / name).read_bytes(), name


# -- the leaderboard's numbers ---------------------------------------------------------------------
def test_leaderboard_numbers_are_the_numbers_irw_eval_prints(demo, db):
    html = (demo / "leaderboard.html").read_text(encoding="utf-8")
    board = as_dicts(table_with(html, "leaderboard"))
    expected = {row["run"]: row for row in eval_json(db, *[a for m in MEASURES + ["Judged@10"] for a in ("-m", m)])}
    assert [row["Run"][1]["data-value"] for row in board] == sorted(expected, key=lambda r: -expected[r]["AP"])
    assert [row["Rank"][0] for row in board] == ["1", "2", "3", "4", "5", "6"]
    for row in board:
        run = row["Run"][1]["data-value"]
        for measure in MEASURES + ["Judged@10"]:
            assert row[measure][0] == format_number(expected[run][measure]), (run, measure)
        judged = 50
        assert row["Queries"][0] == f"{expected[run]['queries']} / {judged}"
        assert row["Date"][0].startswith("2026-")
    # best of each column in bold: the reranker is best everywhere in the sample
    assert html.count("<strong>0.8271</strong>") == 1


def test_leaderboard_significance_is_the_comparison_irw_compare_makes(demo, db):
    html = (demo / "leaderboard.html").read_text(encoding="utf-8")
    board = {row["Run"][1]["data-value"]: row for row in as_dicts(table_with(html, "leaderboard"))}
    others = [r for r in RUNS if r != "rerank"]
    result = irw("compare", *others, "--baseline", "rerank", "--qrels", "sample",
                 *[a for m in MEASURES for a in ("-m", m)], "--format", "json", db=db)
    assert result.exit_code == 0, result.stderr
    for row in json.loads(result.stdout):
        cell = board[row["run"]][row["measure"]]
        mark = cell[1].get("_sup", "")
        assert mark == ("\u25bc" if row["significant"] and row["diff"] < 0 else
                        "\u25b2" if row["significant"] else ""), (row["run"], row["measure"])
        if row["measure"] == "AP":
            assert board[row["run"]]["p (holm) vs top run"][0] == reports.fmt_p(row["p_adjusted"])
            assert board[row["run"]]["\u0394 AP vs top run"][0] == reports.fmt_delta(row["diff"])
    assert board["rerank"]["\u0394 AP vs top run"][0] == "0.0000" and board["rerank"]["p (holm) vs top run"][0] == "\u2014"
    assert "baseline" in board["rerank"]["Run"][0]
    assert "over 15 comparisons: 5 runs against rerank x 3 measures" in html


def test_leaderboard_t_tests_match_scipy_after_holm(db):
    with warehouse.open(db) as wh:
        board = reports.leaderboard(wh, "sample", ["AP"], baseline="bm25", stats=StatsSettings(test="ttest"))
    per_query: dict = {}
    for row in eval_json(db, "-m", "AP", "-q"):
        per_query.setdefault(row["run"], {})[row["query"]] = row["AP"]
    raw = {}
    for run in RUNS:
        if run == "bm25":
            continue
        shared = sorted(set(per_query[run]) & set(per_query["bm25"]))
        raw[run] = scipy_stats.ttest_rel([per_query[run][q] for q in shared],
                                         [per_query["bm25"][q] for q in shared]).pvalue
    order = sorted(raw, key=raw.get)
    holm, running = {}, 0.0
    for k, run in enumerate(order):
        running = max(running, min(1.0, (len(order) - k) * raw[run]))
        holm[run] = running
    for row in board.rows:
        if row.run == "bm25":
            assert row.is_baseline and row.p_adjusted is None
        else:
            assert row.p_adjusted == pytest.approx(holm[row.run], rel=1e-8, abs=1e-300), row.run


def test_leaderboard_reads_stored_scores_and_a_new_run_costs_only_that_run(db, tmp_path, monkeypatch):
    computed = []
    original = Evaluator._compute

    def spy(self, evaluation_id, qrels_id, s, measures, run_ids):
        computed.append(sorted(run_ids))
        return original(self, evaluation_id, qrels_id, s, measures, run_ids)

    monkeypatch.setattr(Evaluator, "_compute", spy)
    with warehouse.open(db) as wh:
        reports.write_leaderboard(wh, "sample", tmp_path / "lb.html")
        assert computed == []  # the demo stored every score the leaderboard and run pages read
        text = tmp_path / "new.txt"
        source = wh.sql("select source_path from runs where name = 'bm25'").rows[0][0]
        text.write_text(Path(source).read_text().replace(" bm25\n", " bm25-v2\n"))
        wh.ingest_run(text, "bm25-v2", system="bm25")
        new_id = wh.sql("select run_id from runs where name = 'bm25-v2'").rows[0][0]
        board = reports.leaderboard(wh, "sample", run_pages=True)
    assert computed and all(ids == [new_id] for ids in computed)
    assert len(board.rows) == 7


# -- run page --------------------------------------------------------------------------------------
def test_run_page_numbers_match_irw_eval_and_the_run_file(demo, db):
    html = (demo / "leaderboard_runs" / "bm25-trunc.html").read_text(encoding="utf-8")
    per_query = {}
    for row in eval_json(db, "bm25-trunc", "rerank", *[a for m in MEASURES for a in ("-m", m)], "-q"):
        per_query.setdefault(row["run"], {})[row["query"]] = row
    table = as_dicts(table_with(html, "per-query"))
    assert [row["Query"][0] for row in table] == sorted(per_query["bm25-trunc"])
    for row in table:
        q = row["Query"][0]
        for m in MEASURES:
            assert row[m][0] == format_number(per_query["bm25-trunc"][q][m])
        assert row["\u0394 AP"][0] == reports.fmt_delta(per_query["bm25-trunc"][q]["AP"] - per_query["rerank"][q]["AP"])
    # the chosen query is the one where the run loses most to the baseline (rerank) on AP
    deltas = {q: per_query["bm25-trunc"][q]["AP"] - per_query["rerank"][q]["AP"] for q in per_query["bm25-trunc"]}
    worst = min(deltas, key=lambda q: (deltas[q], q))
    assert f"Relevant documents of query {worst}" in html

    # the precision-recall points are trec_eval's interpolated precision, as irw eval prints it
    levels = [f"IPrec@{x / 10:.1f}" for x in range(11)]
    iprec = eval_json(db, "bm25-trunc", *[a for m in levels for a in ("-m", m)])[0]
    for x, (name, value) in enumerate((k, v) for k, v in iprec.items() if k.startswith("IPrec")):
        assert f"bm25-trunc: precision {format_number(value)} at recall {x / 10:.1f}" in html

    # ranks of the relevant documents, recomputed from the run file: score as float32 desc, docid desc
    source = next(demo.glob("data/run.bm25-trunc.txt"))
    docs = [line.split() for line in source.read_text().splitlines() if line.split()[0] == worst]
    ordered = sorted(docs, key=lambda f: (-np.float32(float(f[4])), tuple(-b for b in f[2].encode())))
    rank_of = {f[2]: i for i, f in enumerate(ordered, start=1)}
    qrels = [line.split() for line in (demo / "data" / "qrels.txt").read_text().splitlines()]
    relevant = {d: int(g) for q, _, d, g in qrels if q == worst and int(g) >= 1}
    ranks = as_dicts(next(t for t in tables(html) if t["head"] and t["head"][0] == "Document"))
    assert {row["Document"][0] for row in ranks} == set(relevant)
    for row in ranks:
        doc = row["Document"][0]
        assert row["Grade"][0] == str(relevant[doc])
        shown = row["Rank in bm25-trunc"][0]
        assert shown == (f"{rank_of[doc]:,}" if doc in rank_of else "not retrieved"), doc


def test_run_page_on_its_own_has_its_own_family_and_the_chosen_query(db, tmp_path):
    out = tmp_path / "bm25.html"
    result = irw("report", "run", "bm25", "--qrels", "sample", "--baseline", "bm25-rm3", "--query", "1003",
                 "-m", "AP", "-o", out, db=db)
    assert result.exit_code == 0, result.stderr
    html = out.read_text(encoding="utf-8")
    assert "Relevant documents of query 1003" in html and "chosen with --query" in html
    assert "over 1 comparison: bm25 against bm25-rm3 x 1 measure" in html
    alone = irw("report", "run", "bm25", "--qrels", "sample", "-o", "-", db=db)
    assert alone.exit_code == 0 and "No baseline" in alone.stdout
    missing = irw("report", "run", "bm25", "--qrels", "sample", "--query", "nope", "-o", out, db=db)
    assert missing.exit_code == 1 and "query 'nope' is not in the qrels set" in missing.stderr


# -- history and compare ------------------------------------------------------------------------------
def test_history_flags_a_newer_run_significantly_worse_than_the_run_before(demo, db):
    html = (demo / "history.html").read_text(encoding="utf-8")
    bm25 = next(t for t in tables(html) if t["head"] and t["head"][0] == "Date" and
                any("bm25-trunc" in row[1][0] for row in t["rows"]))
    rows = {row["Run"][0]: row for row in as_dicts(bm25)}
    assert [r["Run"][0] for r in as_dicts(bm25)] == ["bm25", "bm25-rm3", "bm25-trunc"]  # in time order
    assert rows["bm25-trunc"]["Verdict"][0] == "\u25bc significantly worse"
    assert rows["bm25-rm3"]["Verdict"][0] == "\u25b2 significantly better"
    assert rows["bm25"]["Verdict"][0] == "first run"
    assert "1 run is flagged." in html
    # the verdict holds by scipy too: AP of bm25-trunc vs bm25-rm3 over their 45 shared queries
    per_query: dict = {}
    for row in eval_json(db, "bm25-trunc", "bm25-rm3", "-m", "AP", "-q"):
        per_query.setdefault(row["run"], {})[row["query"]] = row["AP"]
    shared = sorted(set(per_query["bm25-trunc"]) & set(per_query["bm25-rm3"]))
    assert len(shared) == 45
    a = np.array([per_query["bm25-trunc"][q] for q in shared])
    b = np.array([per_query["bm25-rm3"][q] for q in shared])
    p = scipy_stats.permutation_test((a, b), lambda x, y, axis: np.mean(x - y, axis=axis), vectorized=True,
                                     permutation_type="samples", n_resamples=9_999, rng=np.random.default_rng(0)).pvalue
    assert p * 2 < 0.05 and a.mean() < b.mean()  # two comparisons in the family: Holm multiplies by at most 2
    assert rows["bm25-trunc"]["\u0394 to previous"][0] == reports.fmt_delta(a.mean() - b.mean())


def test_compare_page_and_history_commands(db, tmp_path):
    result = irw("report", "compare", "bm25", "bm25-rm3", "dense", "--qrels", "sample", "-m", "AP", "-o",
                 tmp_path / "c.html", db=db)
    assert result.exit_code == 0, result.stderr
    html = (tmp_path / "c.html").read_text(encoding="utf-8")
    tested = as_dicts(table_with(html, "comparison"))
    assert [(r["Run"][0], r["Baseline"][0]) for r in tested] == [("bm25-rm3", "bm25"), ("dense", "bm25"),
                                                                   ("dense", "bm25-rm3")]
    # three scatter plots and the precision-recall curves (drawn wide, marked so, and compact)
    assert html.count('<svg class="chart"') + html.count('<svg class="chart has-compact"') == 4
    assert html.count('<svg class="chart compact"') == 1
    result = irw("report", "history", "--qrels", "sample", "--system", "bm25", "-o", tmp_path / "h.html", db=db)
    assert result.exit_code == 0, result.stderr
    html = (tmp_path / "h.html").read_text(encoding="utf-8")
    assert "<h2>bm25" in html and "<h2>dense" not in html
    result = irw("report", "compare", "bm25", "--qrels", "sample", "-o", tmp_path / "x.html", db=db)
    assert result.exit_code == 2 and "at least two runs" in result.stderr


def test_leaderboard_command_writes_run_pages_or_not_and_to_stdout(db, tmp_path):
    result = irw("report", "leaderboard", "--qrels", "sample", "-m", "nDCG@10", "--baseline", "bm25",
                 "--no-run-pages", "-o", tmp_path / "lb.html", db=db)
    assert result.exit_code == 0, result.stderr
    html = (tmp_path / "lb.html").read_text(encoding="utf-8")
    assert not (tmp_path / "lb_runs").exists() and "<a href" not in html
    assert [h for h in table_with(html, "leaderboard")["head"]][3] == "nDCG@10"
    assert "Baseline: <strong>bm25</strong>." in html
    result = irw("report", "leaderboard", "--qrels", "sample", "-o", "-", db=db)
    assert result.exit_code == 0 and result.stdout.startswith("<!DOCTYPE html>")
    result = irw("report", "leaderboard", "--qrels", "sample", "--baseline", "nope", "-o", tmp_path / "x.html", db=db)
    assert result.exit_code == 1 and "no run named 'nope'" in result.stderr


def test_demo_ends_with_the_leaderboard_and_prints_its_path(demo, tmp_path, capsys):
    run_demo(tmp_path / "d")
    err = capsys.readouterr().err.splitlines()
    assert err[-3].startswith(f"# leaderboard: {(tmp_path / 'd' / 'leaderboard.html').resolve()}")
    # then the next command, ending its line, which works as printed (a walk's newcomer typed `irw
    # runs` in the clone: "no warehouse at irw.duckdb"; another copied the comma that followed it)
    assert err[-2] == (f"# next, with irw on your PATH (in the checkout: . .venv/bin/activate): irw runs --db "
                       f"{tmp_path / 'd' / 'irw.duckdb'}")
    assert err[-1] == "# then the commands of docs/quickstart.md, \"The demo warehouse\""
    listed = CliRunner().invoke(app, shlex.split(err[-2].split("): ", 1)[1])[1:])
    assert listed.exit_code == 0 and "rerank" in listed.stdout, listed.stderr
    assert (tmp_path / "d" / "leaderboard_runs" / "rerank.html").is_file()


# -- safety: escaping and self-containment ----------------------------------------------------------
HOSTILE = "<script>alert(1)</script>"


@pytest.fixture
def hostile_db(tmp_path):
    """A warehouse whose run name, system, description, parameters and ir_metadata are all markup."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {int(d % 3 == 0)}\n" for q in range(4) for d in range(12)))
    db = tmp_path / "h.duckdb"
    with warehouse.open(db) as wh:
        wh.ingest_qrels(qrels, "q")
        for index, name in enumerate([HOSTILE, "plain"]):
            run = tmp_path / f"run{index}.txt"
            header = ("# ir_metadata.start\n# tag: <img src=x onerror=alert(3)>\n# ir_metadata.end\n" if index == 0
                      else "")
            run.write_text(header + "".join(f"q{q} Q0 d{d} {d + 1} {20 - d - index * (d % 2)} t{index}\n"
                                            for q in range(4) for d in range(12)))
            wh.ingest_run(run, name, system='"><b>sys</b>', description="<img src=x onerror=alert(2)>",
                          parameters={"<k>": "<v>"})
    return db


def test_markup_in_names_and_metadata_shows_as_text(hostile_db, tmp_path):
    with warehouse.open(hostile_db) as wh:
        written = reports.write_leaderboard(wh, "q", tmp_path / "lb.html", ["AP"])
        pages = [p.read_text(encoding="utf-8") for p in written]
        pages.append(reports.render_compare_page(reports.compare_page(wh, [HOSTILE, "plain"], "q", ["AP"])))
        pages.append(reports.render_history(reports.history(wh, "q")))
    assert all(p.parent.name in ("lb_runs", tmp_path.name) and "<" not in p.name for p in written)
    for html in pages:
        assert "<script>alert" not in html and "<img" not in html and "<b>sys" not in html
        assert html.count("<script>") == 1  # the sorting script, and nothing else
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages[0]
    run_page = next(html for html in pages[1:3] if "ir_metadata" in html and "onerror=alert(3)" in html)
    assert "&lt;img src=x onerror=alert(3)&gt;" in run_page
    assert "&lt;k&gt;=&lt;v&gt;" in run_page


def test_every_page_is_self_contained(demo):
    pages = [demo / "leaderboard.html", demo / "history.html", *sorted((demo / "leaderboard_runs").glob("*.html"))]
    for path in pages:
        html = path.read_text(encoding="utf-8")
        assert "Content-Security-Policy" in html and "default-src 'none'" in html
        assert not re.search(r"<(link|img|iframe|object|embed)\b", html), path
        assert not re.search(r"\bsrc\s*=", html) and "url(" not in html and "@import" not in html, path
        assert set(re.findall(r"https?://[^\s\"'<>]+", html)) <= {"http://www.w3.org/2000/svg"}, path
        for href in re.findall(r'href="([^"]*)"', html):
            assert re.fullmatch(r"(\.\./)?([A-Za-z0-9._-]+/)?[A-Za-z0-9._%-]+\.html", href), (path, href)
        # every setting behind the numbers is stated
        for label in ("Test", "Alpha", "Correction", "Permutations", "Seed", "Tie rule", "Query set",
                      "Relevance level", "Cutoffs", "trec_eval compatibility"):
            if path.name != "rerank.html" or label in ("Tie rule", "Query set", "Relevance level", "Cutoffs",
                                                       "trec_eval compatibility"):
                assert f"<dt>{label}</dt>" in html, (path, label)


# -- real-use layout: where pages go, what they show first, what a failed write leaves -----------------
def hrefs(html: str) -> list[str]:
    return re.findall(r'href="([^"]*)"', html)


def test_two_leaderboards_in_one_folder_keep_their_own_run_pages(db, tmp_path):
    out = tmp_path / "site"
    for name, measure in (("by-ap.html", "AP"), ("by-ndcg.html", "nDCG@10")):
        result = irw("report", "leaderboard", "--qrels", "sample", "-m", measure, "-o", out / name, db=db)
        assert result.exit_code == 0, result.stderr
        assert f"wrote 6 run pages to {out / name.replace('.html', '_runs')}" in result.stderr
    for name, measure in (("by-ap.html", "AP"), ("by-ndcg.html", "nDCG@10")):
        html = (out / name).read_text(encoding="utf-8")
        links = [h for h in hrefs(html) if h.endswith(".html")]
        assert len(links) == 6
        for link in links:
            page = (out / unquote(link)).resolve()
            assert page.parent == (out / name.replace(".html", "_runs")).resolve() and page.is_file(), link
            text = page.read_text(encoding="utf-8")
            # the run page links back to its own leaderboard and shows that leaderboard's measure first
            assert hrefs(text) == [f"../{name}"]
            assert (page.parent / unquote(hrefs(text)[0])).resolve() == (out / name).resolve()
            summary = table_with(text, "per-query")["head"]
            assert summary[1] == measure


@pytest.fixture
def awkward_names_db(tmp_path):
    """Runs named as no file should be: a path, a parent folder, a Windows device, names equal but for case,
    60 characters, a space, non-ASCII; their systems are their names."""
    names = ["../escape", "a/b", "CON", "BM25", "bm25", "SPLADE_" + "X" * 53, "spaced name", "\u00fcn\u00ef"]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {int(d % 3 == 0)}\n" for q in range(4) for d in range(12)))
    db = tmp_path / "names.duckdb"
    with warehouse.open(db) as wh:
        wh.ingest_qrels(qrels, "q")
        for index, name in enumerate(names):
            run = tmp_path / f"run{index}.txt"
            run.write_text("".join(f"q{q} Q0 d{d} {d + 1} {20 - d - index * (d % 2)} t{index}\n"
                                   for q in range(4) for d in range(12)))
            wh.ingest_run(run, name, date="2026-11-01T10:00:00")  # one date, as files copied together have
    return db, names


def test_a_run_page_is_named_by_its_run_up_to_81_characters():
    """docs/reports.md's rule: a name of 81 characters is its page's name; one longer (a walk's
    95-character nightly runs) is cut to 60 and hashed, as an unsafe name is."""
    kept = "SPLADE_PP_EnsembleDistil_cocondenser-msmarco-v1_maxlen512_k1000_hardneg.covid.012"
    assert len(kept) == 81 and reports.files.run_page_name(kept) == f"{kept}.html"
    longer = kept + "2"
    cut = reports.files.run_page_name(longer)
    assert re.fullmatch(re.escape(longer[:60]) + r"-[0-9a-f]{8}\.html", cut), cut


def test_run_pages_of_awkward_names_stay_in_their_folder(awkward_names_db, tmp_path):
    db, names = awkward_names_db
    out = tmp_path / "out"
    with warehouse.open(db) as wh:
        written = reports.write_leaderboard(wh, "q", out / "board.html", ["AP"])
    pages = written[1:]
    assert written[0] == out / "board.html" and len(pages) == len(names)
    assert all(p.parent == out / "board_runs" for p in pages)
    # the pages, and the record of what each was made from (reports.files.PAGE_MANIFEST)
    assert sorted(p.name for p in (out / "board_runs").iterdir()) == sorted([p.name for p in pages] +
                                                                          [reports.files.PAGE_MANIFEST])
    assert len({p.name.casefold() for p in pages}) == len(names)  # BM25 and bm25 apart on any file system
    assert sorted(p.name for p in out.iterdir()) == ["board.html", "board_runs"]  # nothing escaped
    by_name = {p.name for p in pages}
    assert {"SPLADE_" + "X" * 53 + ".html"} <= by_name and "CON.html" not in by_name
    html = written[0].read_text(encoding="utf-8")
    board = as_dicts(table_with(html, "leaderboard"))
    assert len(board) == len(names)
    linked = {}
    for href in hrefs(html):
        target = (out / unquote(href)).resolve()
        assert target.parent == (out / "board_runs").resolve() and target.is_file(), href
        title = re.search(r"<h1>Run (.*?) <span", target.read_text(encoding="utf-8")).group(1)
        linked[unescape(title.replace("<wbr>", ""))] = href  # the name may break after _ - / :
    assert sorted(linked) == sorted(names)
    # every system is its run's name: no System column
    assert "System" not in table_with(html, "leaderboard")["head"]
    # all runs share one date: the history says it cannot order them in time
    with warehouse.open(db) as wh:
        history = reports.render_history(reports.history(wh, "q"))
    assert "<strong>Every run has the same date</strong>" in history and "--date" in history


def test_system_column_shows_when_a_system_differs_from_its_run(demo):
    html = (demo / "leaderboard.html").read_text(encoding="utf-8")
    assert "System" in table_with(html, "leaderboard")["head"]  # bm25-rm3 is of system bm25


def test_run_page_puts_the_per_query_table_before_the_collapsed_relevant_documents(demo):
    html = (demo / "leaderboard_runs" / "bm25-trunc.html").read_text(encoding="utf-8")
    per_query = html.index('<table class="sortable per-query">')
    details = html.index('<details class="long-table">')
    relevant = html.index('<table class="sortable relevant">')
    assert per_query < details < relevant
    assert "<details class=\"long-table\" open" not in html  # collapsed until asked for
    assert html.index("</details>") > relevant


def test_history_leads_with_one_overview_and_draws_only_systems_with_runs_to_compare(demo, db):
    html = (demo / "history.html").read_text(encoding="utf-8")
    headings = re.findall(r"<h2>(.*?)</h2>", html)
    assert headings[:3] == ["All runs", 'bm25 <span class="flag">&#9660; 1</span>', "Systems with a single run"]
    figures = re.findall(r"<figure>.*?</figure>", html, flags=re.S)
    assert len(figures) == 2  # the overview and bm25's: dense, rerank and random have one run each
    overview = figures[0]
    assert len(re.findall(r'<path class="(?:flagged|marker series-\d)" d="[^"]*"><title>', overview)) == 6
    # the best so far over the whole board, in time order: bm25, bm25-rm3, dense, rerank, then flat
    ap = {row["run"]: row["AP"] for row in eval_json(db, "-m", "AP")}
    order = ["bm25", "bm25-rm3", "dense", "rerank", "random", "bm25-trunc"]
    titles = re.findall(r"<title>(.*?)</title>", overview)
    assert [t.split(" (")[0].split(": ")[-1] for t in titles if "(2026" in t] == order
    steps = re.search(r'<path class="best" d="([^"]+)"', overview).group(1)
    assert steps.count("V") == 3  # three new bests after the first run
    single = as_dicts(table_with(html, "single-runs"))
    assert [row["Run"][0] for row in single] == ["dense", "rerank", "random"]  # in time order
    assert [row["AP"][0] for row in single] == [format_number(ap[r]) for r in ("dense", "rerank", "random")]
    assert "System" not in table_with(html, "single-runs")["head"]


def test_report_that_cannot_be_written_is_an_error_and_leaves_no_page(db, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for command in (["leaderboard"], ["history"], ["compare", "bm25", "dense"], ["run", "bm25"]):
        result = irw("report", *command, "--qrels", "sample", "-m", "AP", "-o", blocker / "x.html", db=db)
        assert result.exit_code == 1, (command, result.stderr)
        assert result.stderr.startswith("Error: cannot write") and "a-file is a file, not a folder" in result.stderr
        assert "Traceback" not in result.stderr
    assert blocker.read_text() == "not a folder"
    # a folder given as the page: refused before anything is written (the leaderboard wrote its run
    # pages into FOLDER_runs/ first, then refused the folder)
    folder = tmp_path / "reports"
    folder.mkdir()
    before = sorted(p.name for p in tmp_path.iterdir())
    for command in (["leaderboard"], ["history"], ["compare", "bm25", "dense"], ["run", "bm25"]):
        result = irw("report", *command, "--qrels", "sample", "-m", "AP", "-o", folder, db=db)
        assert result.exit_code == 1, (command, result.stderr)
        assert f"Error: cannot write {folder}: it is a folder, not a file; choose another -o path" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before and not any(folder.iterdir())
    if Path("/sys").is_dir() and not os.access("/sys", os.W_OK | os.X_OK):
        result = irw("report", "history", "--qrels", "sample", "-o", "/sys/irw-report.html", db=db)
        assert result.exit_code == 1 and result.stderr.startswith("Error: cannot write /sys/irw-report.html")


def test_a_full_disk_leaves_the_previous_page_whole(db, tmp_path):
    """A 16 KB tmpfs (root only): the report does not fit, the page there before stays as it was."""
    disk = tmp_path / "full"
    disk.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", str(disk)], capture_output=True).returncode != 0:
        pytest.skip("needs root and a mountable tmpfs to fill a disk")
    try:
        page = disk / "history.html"
        page.write_text("the previous page\n")
        result = irw("report", "history", "--qrels", "sample", "-o", page, db=db)
        assert result.exit_code == 1, result.stderr
        assert result.stderr.strip() == (f"Error: cannot write {page}: no space left on the device; the file is as "
                                         "it was (free some space or choose another -o path)")
        assert page.read_text() == "the previous page\n" and sorted(disk.iterdir()) == [page]
        result = irw("report", "leaderboard", "--qrels", "sample", "-o", disk / "lb.html", db=db)
        assert result.exit_code == 1 and "no space left" in result.stderr and "Traceback" not in result.stderr
        assert not (disk / "lb.html").exists() and not list(disk.glob(".*.tmp"))
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_history_of_many_single_run_systems_is_one_chart_and_one_table(tmp_path):
    """40 systems of one run each (a board of submissions): one overview chart, no chart per system."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {int(d % 3 == 0)}\n" for q in range(4) for d in range(12)))
    with warehouse.open(tmp_path / "many.duckdb") as wh:
        wh.ingest_qrels(qrels, "q")
        for index in range(40):
            run = tmp_path / f"run{index}.txt"
            run.write_text("".join(f"q{q} Q0 d{d} {d + 1} {(d * 7 + index) % 12} s{index}\n"
                                   for q in range(4) for d in range(12)))
            wh.ingest_run(run, f"s{index}", date=f"2026-{1 + index // 28:02d}-{1 + index % 28:02d}")
        html = reports.render_history(reports.history(wh, "q"))
    assert len(re.findall(r"<figure>", html)) == 1
    assert len(re.findall(r'<path class="marker series-\d" d="[^"]*"><title>', html)) == 40  # every run a point of the overview, in its system's colour
    assert [row["Run"][0] for row in as_dicts(table_with(html, "single-runs"))] == sorted(
        (f"s{i}" for i in range(40)), key=lambda name: int(name[1:]))  # in time order: one a day
    assert "system-history" not in html


@pytest.mark.parametrize("settings", [dict(), dict(judged_only=True), dict(depth=50, compat=10, level=2)])
def test_run_pages_read_their_relevant_ranks_in_batches_as_one_at_a_time(db, tmp_path, monkeypatch, settings):
    """A leaderboard's run pages read where the relevant documents sit for many pages in one query
    (page_run._relevant_ranks_many): each page's table and strip are those of the page read alone,
    whichever query each page shows, under -J, and under -M, -l and --compat 10."""
    from warehouse.evaluation.evaluator import Settings
    from warehouse.reports import page_run

    def pages(per_query):
        monkeypatch.setattr(page_run, "RANK_PAGES_PER_QUERY", per_query)
        out = tmp_path / str(per_query) / "board.html"
        out.parent.mkdir()
        with warehouse.open(db) as wh:
            reports.write_leaderboard(wh, "sample", out, MEASURES, baseline="bm25", settings=Settings(**settings))
        folder = out.parent / "board_runs"
        return {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.html")}

    alone, batched = pages(1), pages(4)
    assert len(alone) == len(RUNS) and batched == alone
    queries = {re.search(r"Relevant documents of query (\S+)", html).group(1) for html in alone.values()}
    assert len(queries) > 1  # the batches held pages of different queries


def test_the_history_table_says_over_which_queries_each_delta_is(db):
    """bm25-trunc (45 queries) against bm25-rm3 (50): delta -0.1947 is over the 45 both answer, not
    the difference of the means shown (0.3064 - 0.5037); the table now says so in a column."""
    result = irw("report", "history", "--qrels", "sample", "-m", "AP", "-f", "json", db=db)
    assert result.exit_code == 0, result.stderr
    rows = {row["run"]: row for row in json.loads(result.stdout)}
    trunc, rm3 = rows["bm25-trunc"], rows["bm25-rm3"]
    assert (trunc["queries"], trunc["shared_queries"], rm3["queries"]) == (45, 45, 50)
    assert trunc["delta"] != pytest.approx(trunc["AP"] - rm3["AP"], abs=1e-4)
    assert rows["bm25"]["shared_queries"] is None  # the first run of its system: nothing before it
