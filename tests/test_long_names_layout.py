"""A run name of 300 characters without a break point (no _ - / : or space; a generated name such as
"L" * 300) on every page, in headless Chromium at 1,280 and 390 px.

The user walk: one such name beside the six DL19 runs hid every number at 1,280 px. The leaderboard
showed only Rank and Run; System, nDCG@10 and RR were in the table's sideways scroll. The same held
for the run page's Summary (the name is a column header there), the compare page's tables, history's
"Systems with a single run" and the served leaderboard. The name could break only after _ - / :
(breakable), and `overflow-wrap: break-word` does not narrow a table column, so the column was as
wide as the whole name. At 1,280 px every cell of every table must now be on screen, with no box
scrolling sideways. At 390 px the pages keep what tests/test_browser.py asks of them (GEOMETRY).
Chromium is driven as in tests/test_browser.py, and these tests skip without it as those do.
"""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

import pytest

from conftest import require_conformance
from test_browser import ARTIFACTS, GEOMETRY, WIDTHS, Page, browser, chromium, cli  # noqa: F401 - fixtures
from test_serve import ServedPage, served

LONG = "L" * 300

# At a desktop's width: the page does not scroll sideways, and no cell of any table in <main> (closed
# <details> opened first) is outside the viewport or in a box that scrolls sideways. Returns what
# breaks that, as text.
NOTHING_SCROLLS = """(() => {
  document.querySelectorAll("details").forEach(d => { d.open = true; });
  const root = document.documentElement, width = root.clientWidth, problems = [];
  if (root.scrollWidth > width) problems.push(`the page scrolls sideways: ${root.scrollWidth} > ${width}`);
  document.querySelectorAll("main table").forEach((table, t) => {
    const name = `table ${t} (${table.className || table.id})`;
    if (!table.getClientRects().length) return;  // not shown at this width
    for (let box = table.parentElement; box && box !== document.body; box = box.parentElement)
      if (box.scrollWidth > box.clientWidth + 0.5 && ["auto", "scroll"].includes(getComputedStyle(box).overflowX))
        problems.push(`${name} scrolls sideways in its box: ${box.scrollWidth} > ${box.clientWidth}`);
    const r = table.getBoundingClientRect();
    if (r.left < -0.5 || r.right > width + 0.5)
      problems.push(`${name} is ${Math.round(r.left)}..${Math.round(r.right)} of ${width}`);
    table.querySelectorAll("th, td").forEach(cell => {
      const c = cell.getBoundingClientRect(), text = cell.textContent.trim().slice(0, 30);
      if (c.width && (c.left < -0.5 || c.right > width + 0.5))
        problems.push(`${name} cell '${text}' is ${Math.round(c.left)}..${Math.round(c.right)}`);
    });
  });
  return problems;
})()"""
# the scores (0.1234) of tables in <main>: how many, and how many are wholly within the viewport's width
SCORES = """(() => {
  const width = document.documentElement.clientWidth;
  const cells = Array.from(document.querySelectorAll("main table td.num"))
    .filter(td => /^-?\\d\\.\\d{4}/.test(td.textContent.trim()) && td.getClientRects().length);
  return [cells.length, cells.filter(td => { const r = td.getBoundingClientRect();
                                              return r.left >= -0.5 && r.right <= width + 0.5; }).length];
})()"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict:
    """The repro: the DL19 qrels and its folder of six runs, then the BM25 run less a line named LONG,
    and the leaderboard (with its run pages; again with LONG the baseline), compare pages (LONG a run, and
    the baseline) and the history page."""
    source = require_conformance() / "dl19-passage"
    work = tmp_path_factory.mktemp("long-names")
    db = work / "w.duckdb"
    cli("ingest", "qrels", source / "qrels.dl19-passage.txt", "--name", "dl19", "--db", db)
    cli("ingest", "run", source / "runs", "--db", db)
    lines = (source / "runs" / "run.dl19.BM25.txt").read_text().splitlines(keepends=True)
    (work / "long.txt").write_text("".join(lines[:4] + lines[5:]))
    cli("ingest", "run", work / "long.txt", "--name", LONG, "--db", db)
    html = work / "html"
    cli("report", "leaderboard", "-m", "nDCG@10", "-m", "RR", "-o", html / "lb.html", "--db", db)
    cli("report", "leaderboard", "-m", "nDCG@10", "-m", "RR", "--baseline", LONG, "-o", html / "long" / "lb.html",
        "--db", db)
    cli("report", "compare", "BM25", "REP_LLAMA", LONG, "--baseline", "BM25", "-m", "nDCG@10", "-m", "RR",
        "-o", html / "compare.html", "--db", db)
    cli("report", "compare", LONG, "BM25", "--baseline", LONG, "-m", "nDCG@10", "-m", "RR",
        "-o", html / "compare-long-baseline.html", "--db", db)
    cli("report", "history", "-m", "nDCG@10", "-o", html / "history.html", "--db", db)
    (run_page,) = (html / "lb_runs").glob("LLLL*.html")
    return {"db": db, "work": work, "leaderboard": html / "lb.html", "run": run_page,
            "compare": html / "compare.html", "compare, long baseline": html / "compare-long-baseline.html",
            "history": html / "history.html", "leaderboard, long baseline": html / "long" / "lb.html",
            "BM25 run, long baseline": html / "long" / "lb_runs" / "BM25.html"}


def check(page: Page, name: str, scores: bool = True) -> None:
    """The page at 1,280 and 390 px: at 1,280 nothing scrolls sideways and every score (the page has
    some, unless `scores` is false) is on screen; at both, GEOMETRY holds and the name is on the page whole."""
    assert page.errors() == [], name
    assert LONG in page.js("document.querySelector('main').textContent"), name
    for width in WIDTHS:
        page.set_width(width)
        assert page.js(GEOMETRY) == [], (name, width)
        if width == 1280:
            assert page.js(NOTHING_SCROLLS) == [], (name, width)
            count, shown = page.js(SCORES)
            assert (count > 0 or not scores) and shown == count, (name, width, count, shown)
        page.screenshot(ARTIFACTS / "long-names" / f"{re.sub(r'[^A-Za-z0-9]+', '-', name).strip('-')[:60]}-{width}.png")
    assert page.errors() == [], name


@pytest.mark.parametrize("name", ["leaderboard", "leaderboard, long baseline", "run", "BM25 run, long baseline",
                                  "compare", "compare, long baseline", "history"])
def test_a_300_character_name_hides_no_column_of_a_report(browser, pages, name):
    check(Page(browser, pages[name]), name)


def test_a_300_character_name_hides_no_column_of_the_served_pages(browser, pages):
    with served(str(pages["db"]), log=pages["work"] / "serve.log", cwd=pages["work"]) as base:
        name = quote(LONG, safe="")
        for path in ("/", "/qrels/dl19", f"/qrels/dl19?baseline={name}", f"/qrels/dl19/runs/{name}",
                     f"/qrels/dl19/runs/BM25?baseline={name}",
                     f"/qrels/dl19/compare?run=BM25&run={name}&baseline=BM25", "/qrels/dl19/history"):
            check(ServedPage(browser, base + path), f"served {path[:40]}", scores=path != "/")


def test_names_that_break_after_separators_still_break_only_there():
    """The break points of an ordinary name: only after _ - / : . (a dot since a team's nightly
    BM25.dl21.2026-11-03 broke as BM25.dl21.2 / 026-11-03 on a phone), none in a piece of up to 20
    characters (the pages of tests/golden and DL19 are unchanged); a longer piece gets one at least
    every 20 characters."""
    from warehouse.reports.render import breakable

    assert str(breakable("SPLADE_P_P_ENSEMBLE_DISTIL")) == "SPLADE_<wbr>P_<wbr>P_<wbr>ENSEMBLE_<wbr>DISTIL"
    assert str(breakable("BM25.trec_results_covid")) == "BM25.<wbr>trec_<wbr>results_<wbr>covid"
    assert str(breakable("BM25.dl21.2026-11-03")) == "BM25.<wbr>dl21.<wbr>2026-<wbr>11-<wbr>03"
    assert str(breakable("L" * 20)) == "L" * 20
    pieces = str(breakable(LONG)).split("<wbr>")
    assert "".join(pieces) == LONG and max(map(len, pieces)) <= 20
    assert str(breakable("a&b" * 30)).replace("<wbr>", "") == "a&amp;b" * 30  # never inside an entity
