"""The history page on a phone and a desktop, and the dates it shows.

The data is the demo's six runs, dated by day (`irw edit run --date 2024-01-15`) over four months, as
a team that records the day of each submission has them. At 390 px the page scrolled sideways inside
its charts (a 720 px drawing), so the flagged run and the chart's right part were off screen; every
date read `... 00:00:00`; and the time axis had ticks at 30-day steps from 1970 (2024-02-11,
2024-03-12), not at month starts. Chromium is driven as in tests/test_browser.py (its Browser and
Page), and the tests skip without it as those do.
"""
from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import warehouse
from warehouse.commands.demo import run_demo
from warehouse.commands.irw import app
from warehouse.reports import charts

from test_browser import ARTIFACTS, GEOMETRY, Browser, Page, chromium  # noqa: F401 - chromium is a fixture

DAY_DATES = {"bm25": "2024-01-15", "bm25-rm3": "2024-02-20", "dense": "2024-03-04", "rerank": "2024-03-28",
             "random": "2024-04-15", "bm25-trunc": "2024-05-06"}  # the demo's order, a flagged run last


def cli(*args) -> None:
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, f"irw {' '.join(map(str, args))}: {result.stderr}"


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    """The history page of the demo's runs dated by day, and of the demo as it is (dated 09:00)."""
    folder = tmp_path_factory.mktemp("history-layout")
    db = run_demo(folder / "demo")
    timed = folder / "timed.html"
    cli("report", "history", "--qrels", "sample", "-m", "AP", "-o", timed, "--db", db)
    with warehouse.open(db) as wh:
        for run, day in DAY_DATES.items():
            wh.edit_run(run, date=day)
    by_day = folder / "by-day.html"
    cli("report", "history", "--qrels", "sample", "-m", "AP", "-o", by_day, "--db", db)
    return {"by day": by_day, "timed": timed}


# -- the time axis ---------------------------------------------------------------------------------
def chart_of(*dates: dt.datetime, domain: tuple[dt.datetime, dt.datetime] | None = None) -> charts.HistoryChart:
    points = [(when, 0.1 * (i + 1), f"run {i}", False) for i, when in enumerate(dates)]
    return charts.history_chart(points, title="t", y_label="AP", time_domain=domain)


def labels(frame: charts.Frame) -> list[str]:
    return [tick.label for tick in frame.x_ticks]


def day(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


@pytest.mark.parametrize("first, last, wide, compact", [
    # months apart: month starts (the old axis: 2024-01-16, 2024-02-15, ... 30 days from 1970-01-01)
    ("2024-01-15", "2024-05-06", ["2024-02", "2024-03", "2024-04", "2024-05"], ["2024-02", "2024-03", "2024-04", "2024-05"]),
    ("2023-11-20", "2025-01-10", ["2024-01", "2024-04", "2024-07", "2024-10", "2025-01"], ["2024-01", "2024-07", "2025-01"]),
    # years apart: year starts
    ("2019-06-01", "2024-03-01", ["2020", "2021", "2022", "2023", "2024"], ["2020", "2021", "2022", "2023", "2024"]),
    ("1970-01-01", "2024-03-01", ["1970", "1980", "1990", "2000", "2010", "2020"],
     ["1970", "1980", "1990", "2000", "2010", "2020"]),
    # weeks apart: Mondays (the old axis: Thursdays, 7 days from 1970-01-01), and the 1st and 15th
    ("2024-03-04", "2024-04-01", ["2024-03-04", "2024-03-11", "2024-03-18", "2024-03-25", "2024-04-01"],
     ["2024-03-15", "2024-04-01"]),
    # days apart: each day, or every other (1st, 3rd, ...) where that does not fit; no time of day
    ("2024-03-01", "2024-03-04", ["2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04"],
     ["2024-03-01", "2024-03-03"]),
    ("2024-03-01", "2024-03-02", ["2024-03-01", "2024-03-02"], ["2024-03-01", "2024-03-02"]),
])
def test_time_ticks_fall_on_calendar_boundaries(first, last, wide, compact):
    chart = chart_of(day(first), day(last))
    assert labels(chart.frame) == wide
    assert labels(chart.compact.frame) == compact
    for frame in (chart.frame, chart.compact.frame):
        positions = [float(t.pos) for t in frame.x_ticks]
        assert positions == sorted(positions) and float(frame.left) <= positions[0] and positions[-1] <= float(frame.right)


def test_a_tick_is_where_a_run_of_its_date_is():
    chart = chart_of(day("2024-01-15"), day("2024-03-01"), day("2024-05-06"))
    march = chart.points[1].flag_x
    assert [t.pos for t in chart.frame.x_ticks if t.label == "2024-03"] == [march]


def test_times_of_day_show_only_when_a_run_has_one():
    # the same day, 09:00 and 15:00: hours on the axis
    chart = chart_of(day("2024-03-01 09:00"), day("2024-03-01 15:00"))
    hours = labels(chart.frame)
    assert hours and all(re.fullmatch(r"03-01 \d\d:00", label) for label in hours), hours
    # two days at midnight, within a page's domain: days, never 00:00
    chart = chart_of(day("2024-03-01"), day("2024-03-02"), domain=(day("2024-03-01"), day("2024-03-02")))
    assert labels(chart.frame) == ["2024-03-01", "2024-03-02"]


def shown(html: str) -> str:
    """The page's text as read: without its markup (sort keys are ISO times), with its titles."""
    return re.sub(r"<[^>]*>", "", html)


def test_the_page_shows_no_midnight_when_runs_are_dated_by_day(pages):
    html = pages["by day"].read_text(encoding="utf-8")
    assert "00:00" not in shown(html)
    assert ">2024-01-15</td>" in html and "bm25 (2024-01-15): AP" in html  # the tables and the dots' titles
    # runs with a time of day keep it
    timed = pages["timed"].read_text(encoding="utf-8")
    assert ">2026-01-05 09:00:00</td>" in timed and "bm25 (2026-01-05 09:00:00): AP" in timed


# -- in Chromium ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def browser(chromium, tmp_path_factory):
    opened = Browser(chromium, tmp_path_factory.mktemp("chromium-profile"))
    yield opened
    opened.close()


# Each figure's charts that are drawn (display is not none): their box, the x tick labels, the
# smallest text in px as drawn (font size times the chart's scale) and the boxes of the flags.
DRAWN = """(() => Array.from(document.querySelectorAll("main figure")).map(figure =>
  Array.from(figure.querySelectorAll("svg.chart")).filter(svg => svg.getClientRects().length).map(svg => {
    const r = svg.getBoundingClientRect(), texts = Array.from(svg.querySelectorAll("text"));
    return {left: r.left, right: r.right, width: r.width,
            ticks: texts.filter(t => t.classList.contains("tick-label") && t.getAttribute("text-anchor") === "middle")
                        .map(t => t.textContent),
            smallest: Math.min(...texts.map(t => {
              const m = t.getScreenCTM(); return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b); })),
            flags: Array.from(svg.querySelectorAll("text.flag-label")).map(t => {
              const b = t.getBoundingClientRect(); return [b.left, b.right]; })};
  })))()"""


@pytest.mark.parametrize("width", [390, 1280])
def test_the_history_page_fits_the_screen(browser, pages, width):
    page = Page(browser, pages["by day"])
    page.set_width(width, 844 if width < 600 else 1000)
    viewport = page.js("document.documentElement.clientWidth")
    assert page.js("document.documentElement.scrollWidth") <= viewport
    assert page.js(GEOMETRY) == [], width  # tables on screen or scrolling in a box of their own
    figures = page.js(DRAWN)
    assert len(figures) == 2  # the overview and bm25's runs
    for drawn in figures:
        assert len(drawn) == 1, (width, drawn)  # one drawing of each chart on screen
        chart = drawn[0]
        assert 0 <= chart["left"] and chart["right"] <= viewport, (width, chart)
        assert chart["smallest"] >= 10, (width, chart)  # text as readable as on a desktop
        assert chart["ticks"] and all(re.fullmatch(r"2024-0[1-5]", t) for t in chart["ticks"]), (width, chart)
        assert chart["flags"] and all(0 <= left and right <= viewport for left, right in chart["flags"]), chart
        if width == 1280:
            assert chart["width"] >= 700, chart  # a desktop keeps the wide drawing
    page.js("window.scrollTo(0, 0)")
    page.screenshot(ARTIFACTS / f"history-by-day-{width}.png")
    assert page.errors() == []
    # the verdicts are there to scroll to, inside the table's box
    verdicts = page.js("Array.from(document.querySelectorAll('table.system-history tbody tr'))"
                       ".map(r => r.cells[7].textContent.trim())")
    assert verdicts == ["first run", "\u25b2 significantly better", "\u25bc significantly worse"], json.dumps(verdicts)


def test_a_flagged_run_keeps_its_system_s_marker_shape():
    """The overview of every system drew a flagged run as a circle, whatever its system's marker
    (a walk: a flagged square read as another system's dot); the flag is its colour."""
    day = dt.datetime(2026, 1, 1)
    points = [(day + dt.timedelta(days=i), value, f"run {i}", flagged)
              for i, (value, flagged) in enumerate([(0.3, False), (0.4, False), (0.2, True), (0.1, False)])]
    chart = charts.history_chart(points, title="t", y_label="AP", systems=["A", "B", "B", "A"])
    shape_of = [re.sub(r"[-0-9.,\s]", "", p.d) for p in chart.points]  # the path's commands, not its numbers
    assert [p.css.split()[0] for p in chart.points] == ["marker", "marker", "flagged", "marker"]
    assert shape_of[2] == shape_of[1] != shape_of[0] == shape_of[3], shape_of
