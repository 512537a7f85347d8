"""What a user walk over every page (1,280 x 900 and 390 x 844, headless Chromium) found, on the DL19
files, with the real run names and with the long names of tests/test_long_names_layout.py:

- a leaderboard of five measures (AP, nDCG@10, P@10, AP(rel=2), R@1000) was 1,327 px wide in a
  1,201 px box at 1,280 (every header nowrap beside its sort arrow): the Date column was scrolled
  out of sight. It now fits without its box scrolling, and no number or date takes two lines;
- the compare page's paired tests of six runs scrolled by 8 px at 1,280;
- on a run page at 390 px the column named after the baseline run was 98 px wide, so a long name
  made its header cell ~330 px tall (Summary, Per query, relevant documents);
- the SQL console: one value of 400 characters without a space made the table 4,077 px wide with a
  first row 1,978 px tall; an error's "LINE 1: ..." and "^^^" lines were in a proportional font, so
  the caret pointed at the wrong place;
- a run's description ending with "." read "...numbers.. No baseline".

Chromium is driven as in tests/test_browser.py (these tests skip without it, or without the
conformance files, as those do).
"""
from __future__ import annotations

import re
from html import unescape
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest

from conftest import require_conformance
from test_browser import GEOMETRY, LONG_NAME, WIDTHS, Page, browser, chromium, cli  # noqa: F401 - fixtures
from test_long_names_layout import LONG, NOTHING_SCROLLS
from test_serve import ServedPage, served

MEASURES = ("AP", "nDCG@10", "P@10", "AP(rel=2)", "R@1000")
M = [option for m in MEASURES for option in ("-m", m)]
DL19_RUNS = ("BM25", "BM25_RM3", "D_BERT_KD_TASB", "OPEN_AI_ADA2", "REP_LLAMA", "SPLADE_P_P_ENSEMBLE_DISTIL")
DESCRIPTION = "Anserini's BM25, default numbers."
NOBREAK = "bm25rm3_" + "x" * 100 + "_fb10terms"  # a name of the walk

# the numbers and dates of the tables in <main> that take more than one line: [text, height, line height]
WRAPPED_NUMBERS = """(() => {
  const wrapped = [];
  document.querySelectorAll("main table tbody td.num, main table tbody td.nowrap").forEach(td => {
    if (!td.getClientRects().length) return;
    const range = document.createRange();
    range.selectNodeContents(td);
    const height = range.getBoundingClientRect().height, line = parseFloat(getComputedStyle(td).lineHeight);
    if (height > 1.5 * line) wrapped.push([td.textContent.trim(), Math.round(height), line]);
  });
  return wrapped;
})()"""
# the header cells of the tables in <main>: [text, width, height]
HEADERS = """Array.from(document.querySelectorAll("main table thead th")).filter(th => th.getClientRects().length)
  .map(th => { const r = th.getBoundingClientRect();
               return [th.textContent.trim().slice(0, 40), Math.round(r.width), Math.round(r.height)]; })"""
# the rows of the console's result: [width of the table, width of its box, tallest row]
RESULT = """(() => { const table = document.querySelector("table.result"), box = table.parentElement;
  return [Math.round(table.getBoundingClientRect().width), box.clientWidth,
          Math.max(...Array.from(table.tBodies[0].rows).map(r => Math.round(r.getBoundingClientRect().height)))]; })()"""
# the error's "LINE 1: ..." line and the "^^^" line under it: where the first caret is and where the
# character it points at is (px from the left), the font of the block, the text
CARET = """(() => {
  const box = document.getElementById("message"), nodes = [], walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  let text = "";
  while (walker.nextNode()) { nodes.push([walker.currentNode, text.length]); text += walker.currentNode.data; }
  const left = offset => {
    const [node, start] = nodes.filter(([n, s]) => s <= offset && offset < s + n.data.length)[0];
    const range = document.createRange();
    range.setStart(node, offset - start);
    range.setEnd(node, offset - start + 1);
    return range.getBoundingClientRect().left;
  };
  const lines = text.split("\\n"), at = lines.findIndex(l => l.startsWith("LINE 1: "));
  if (at < 0 || at + 1 >= lines.length) return [null, null, "", text];
  const lineStart = lines.slice(0, at).join("\\n").length + (at ? 1 : 0), caretStart = lineStart + lines[at].length + 1;
  const column = lines[at + 1].indexOf("^");
  const block = box.querySelector("pre") || box;
  return [left(caretStart + column), left(lineStart + column), getComputedStyle(block).fontFamily, text];
})()"""


def ingest_dl19(db: Path, work: Path) -> None:
    source = require_conformance() / "dl19-passage"
    cli("ingest", "qrels", source / "qrels.dl19-passage.txt", "--name", "dl19", "--db", db)
    cli("ingest", "run", source / "runs", "--db", db)
    cli("edit", "run", "BM25", "--description", DESCRIPTION, "--db", db)
    cli("edit", "run", "BM25_RM3", "--system", "BM25", "--db", db)  # so the leaderboard has its System column


@pytest.fixture(scope="module")
def walk(tmp_path_factory) -> dict:
    """Two warehouses of the DL19 qrels and its six runs, five measures evaluated: one as they are, one
    with three more runs: LONG (300 characters without a break point; the BM25 file less a line),
    LONG_NAME (60 characters; BM25's) and NOBREAK (BM25_RM3's); the reports the walk made of each."""
    work = tmp_path_factory.mktemp("pages-walk")
    source = require_conformance() / "dl19-passage"
    lines = (source / "runs" / "run.dl19.BM25.txt").read_text().splitlines(keepends=True)
    (work / "less-a-line.txt").write_text("".join(lines[:4] + lines[5:]))
    pages: dict = {"work": work}
    for kind in ("dl19", "long"):
        db = work / f"{kind}.duckdb"
        ingest_dl19(db, work)
        if kind == "long":
            cli("ingest", "run", work / "less-a-line.txt", "--name", LONG, "--db", db)
            (work / "run.long.txt").write_text((source / "runs" / "run.dl19.BM25.txt").read_text().replace(" rank\n", " long\n"))
            cli("ingest", "run", work / "run.long.txt", "--name", LONG_NAME, "--system", "BM25",
                "--db", db)
            (work / "run.nobreak.txt").write_text(
                (source / "runs" / "run.dl19.BM25_RM3.txt").read_text().replace(" rank\n", " nobreak\n"))
            cli("ingest", "run", work / "run.nobreak.txt", "--name", NOBREAK, "--db", db)
        cli("eval", *M, "--db", db)
        html = work / kind
        cli("report", "leaderboard", *M, "-o", html / "leaderboard.html", "--db", db)
        pages[kind] = {"db": db, "leaderboard": html / "leaderboard.html"}
    long = pages["long"]
    html = work / "long"
    # the walk's six: a name of 100 characters without a break point, named third, is the Run of two
    # pairs and the Baseline of three, so both columns are as wide as a 20-character piece of it
    six = ["BM25_RM3", "D_BERT_KD_TASB", NOBREAK, "OPEN_AI_ADA2", "REP_LLAMA", "SPLADE_P_P_ENSEMBLE_DISTIL"]
    cli("report", "compare", *six, *M, "-o", html / "compare6.html", "--db", long["db"])
    cli("report", "compare", *DL19_RUNS, *M, "-o", work / "dl19" / "compare6.html", "--db", pages["dl19"]["db"])
    pages["dl19"]["compare6"] = work / "dl19" / "compare6.html"
    long["compare6"] = html / "compare6.html"
    for name, run, baseline in (("run-long-baseline", "REP_LLAMA", LONG), ("run-long", LONG, LONG_NAME),
                                ("run-60-baseline", "BM25", LONG_NAME)):
        cli("report", "run", run, "--baseline", baseline, *M, "-o", html / f"{name}.html", "--db", long["db"])
        long[name] = html / f"{name}.html"
    cli("report", "run", "BM25", *M, "-o", work / "dl19" / "bm25.html", "--db", pages["dl19"]["db"])
    cli("report", "run", "BM25", "--baseline", "REP_LLAMA", *M, "-o", work / "dl19" / "bm25-vs.html",
        "--db", pages["dl19"]["db"])
    pages["dl19"]["bm25"], pages["dl19"]["bm25-vs"] = work / "dl19" / "bm25.html", work / "dl19" / "bm25-vs.html"
    return pages


def fits_1280(page: Page, name: str) -> None:
    """At 1,280 px nothing scrolls sideways, no number or date wraps; at 390 px GEOMETRY holds."""
    assert page.errors() == [], name
    for width in WIDTHS:
        page.set_width(width)
        assert page.js(GEOMETRY) == [], (name, width)
        if width == 1280:
            assert page.js(NOTHING_SCROLLS) == [], (name, width, page.js(HEADERS))
            assert page.js(WRAPPED_NUMBERS) == [], (name, width)
    assert page.errors() == [], name


@pytest.mark.parametrize("kind", ["dl19", "long"])
def test_a_leaderboard_of_five_measures_fits_1280_px(browser, walk, kind):
    page = Page(browser, walk[kind]["leaderboard"])
    headers = [h[0] for h in page.js(HEADERS)]
    assert all(any(h.startswith(m) for h in headers) for m in MEASURES) and headers[-1] == "Date", headers
    fits_1280(page, f"leaderboard ({kind})")


def test_the_served_leaderboard_of_five_measures_fits_1280_px(browser, walk):
    for kind in ("dl19", "long"):
        with served(str(walk[kind]["db"]), log=walk["work"] / f"serve-{kind}.log", cwd=walk["work"]) as base:
            page = ServedPage(browser, f"{base}/qrels/dl19?" + urlencode([("m", m) for m in MEASURES]))
            fits_1280(page, f"served leaderboard ({kind})")


@pytest.mark.parametrize("kind", ["dl19", "long"])
def test_the_paired_tests_of_six_runs_fit_1280_px(browser, walk, kind):
    page = Page(browser, walk[kind]["compare6"])
    assert page.js("document.querySelectorAll('table.comparison tbody tr').length") == 15 * len(MEASURES)
    fits_1280(page, f"compare six runs ({kind})")


@pytest.mark.parametrize("name", ["run-long-baseline", "run-long", "run-60-baseline"])
def test_a_run_name_as_a_column_header_keeps_the_header_short_at_390_px(browser, walk, name):
    """Summary, Per query and the relevant documents name the run and its baseline in a header: at
    390 px (the tables scroll sideways in their box) no header is taller than ~5 lines of text, and
    the whole name is still on the page and in the header's title."""
    page = Page(browser, walk["long"][name])
    page.set_width(390, 844)
    assert page.js(GEOMETRY) == []
    headers = page.js(HEADERS)
    named = [h for h in headers if h[0].startswith(("BM25_tuned", "LLLL", "Rank in"))]
    assert len(named) >= 3, headers
    assert max(h[2] for h in headers) <= 120, headers
    titles = page.js("Array.from(document.querySelectorAll('main thead th [title]')).map(e => e.title)")
    assert LONG in titles or LONG_NAME in titles, titles
    assert LONG in page.js("document.body.textContent") or LONG_NAME in page.js("document.body.textContent")
    assert page.errors() == []


SQL_LONG = "SELECT name, repeat(description||' ',8) AS long_text, repeat('abcdefghij',40) AS no_break FROM runs"


def test_the_sql_console_wraps_a_long_value_inside_its_cell(browser, walk):
    with served(str(walk["long"]["db"]), log=walk["work"] / "serve-sql.log", cwd=walk["work"]) as base:
        page = ServedPage(browser, f"{base}/sql?q=" + quote(SQL_LONG))
        assert "abcdefghij" * 40 in page.text("table.result")  # every character still there
        assert DESCRIPTION in page.text("table.result")
        for width in WIDTHS:
            page.set_width(width)
            assert page.js(GEOMETRY) == [], width
            table, box, tallest = page.js(RESULT)
            # 400 characters in a cell 24em wide (16em at 390 px): ten lines, fifteen on a phone
            assert tallest <= (250 if width == 1280 else 400), (width, table, box, tallest)
            if width == 1280:
                assert table <= box and page.js(NOTHING_SCROLLS) == [], (table, box)
        assert page.errors() == []


def test_an_sql_error_keeps_its_caret_under_what_it_points_at(browser, walk):
    statement = 'SELECT * FROM "nonexistent_<b>table</b>_with_a_rather_long_name"'
    with served(str(walk["dl19"]["db"]), log=walk["work"] / "serve-sql-error.log", cwd=walk["work"]) as base:
        page = ServedPage(browser, f"{base}/sql?q=" + quote(statement))
        for width in WIDTHS:
            page.set_width(width)
            assert page.js("document.documentElement.scrollWidth <= document.documentElement.clientWidth"), width
            caret, target, font, text = page.js(CARET)
            assert 'LINE 1: SELECT * FROM "nonexistent_' in text and "^" in text, text
            assert "<b>table</b>" in text and page.js("document.querySelectorAll('#message b').length") == 0
            assert "mono" in font.lower(), font
            if width == 1280:  # one line each: the caret under the table's name
                assert caret is not None and abs(caret - target) < 0.5, (caret, target, text)
        assert page.errors() == ["Failed to load resource: the server responded with a status of 400 (Bad Request)"] \
            or all("status of 4" in e for e in page.errors())


def lede(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", re.search(r'<p class="lede">(.*?)</p>', html, re.S).group(1)))


def test_a_description_ending_with_a_full_stop_gets_no_second_one(walk):
    without = lede(walk["dl19"]["bm25"].read_text())
    versus = lede(walk["dl19"]["bm25-vs"].read_text())
    assert without.startswith(DESCRIPTION + " No baseline"), without
    assert versus.startswith(DESCRIPTION + " Compared with"), versus
    with served(str(walk["dl19"]["db"]), log=walk["work"] / "serve-lede.log", cwd=walk["work"]) as base:
        from test_serve import get

        status, _, html = get(f"{base}/qrels/dl19/runs/BM25")
        assert status == 200 and lede(html).startswith(DESCRIPTION + " No baseline"), lede(html)
        status, _, html = get(f"{base}/qrels/dl19/runs/REP_LLAMA?baseline=BM25")
        assert status == 200 and ".." not in lede(html)
