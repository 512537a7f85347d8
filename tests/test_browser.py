"""The reports in a real browser: headless Chromium over the DevTools protocol (a pipe, no extra packages).

Two sets of pages. The golden pages (tests/golden, the demo data's reports): nothing is logged as an
error, nothing is fetched, a click on a column header sorts, the pages read with JavaScript off. And
the reports of the real TREC DL 2019 passage files in ../shared/conformance (six runs, long names,
plus one run with a 60-character name), as a user makes them with the CLI: the leaderboard, its run
pages, a compare page and the history page, each at 1,280 and 390 px wide, asserted on element
geometry (every header cell of every table is on screen, or inside a box of its own that scrolls
sideways and is itself on screen; the page never scrolls sideways), with header cells clicked
where they have no label. Screenshots go to test-artifacts/ (git-ignored) and, for DL19, to a
temporary folder whose path the test prints.

Chromium is Debian's `chromium` package, which `make test` installs when missing (as root, with
apt-get; see the Makefile). Without it these tests are skipped, except under CI, where they fail.
"""
from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import struct
import subprocess
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import require_conformance, under_ci
import warehouse
from warehouse.commands.irw import app

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "golden"
ARTIFACTS = REPO / "test-artifacts"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
TIMEOUT = 20.0


def find_chromium() -> str | None:
    return next((shutil.which(name) for name in BROWSERS if shutil.which(name)), None)


@pytest.fixture(scope="module")
def chromium() -> str:
    binary = find_chromium()
    if binary is None:
        reason = "chromium is not installed: `make test` installs Debian's chromium as root, or apt-get install chromium"
        if under_ci():
            pytest.fail(f"CI is set and {reason}", pytrace=False)
        pytest.skip(reason)
    return binary


class Browser:
    """Chromium with --remote-debugging-pipe: DevTools messages are JSON ended by NUL on fds 3 and 4."""

    def __init__(self, binary: str, profile: Path):
        to_browser = os.pipe()
        from_browser = os.pipe()
        # above fd 10 so the child's dup2 onto 3 and 4 cannot clobber one of them
        self._child_in = fcntl.fcntl(to_browser[0], fcntl.F_DUPFD_CLOEXEC, 10)
        self._child_out = fcntl.fcntl(from_browser[1], fcntl.F_DUPFD_CLOEXEC, 10)
        for fd in (to_browser[0], from_browser[1]):
            os.close(fd)
        self.write_fd, self.read_fd = to_browser[1], from_browser[0]

        def pipes_on_3_and_4():
            os.dup2(self._child_in, 3)
            os.dup2(self._child_out, 4)

        self.process = subprocess.Popen(
            [binary, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
             "--disable-background-networking", "--disable-component-update", "--mute-audio",
             f"--user-data-dir={profile}", "--window-size=1280,1000", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=pipes_on_3_and_4, close_fds=False)
        os.close(self._child_in)
        os.close(self._child_out)
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict] = []

    # -- protocol ------------------------------------------------------------------------------
    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("chromium did not answer in time")
            ready, _, _ = select.select([self.read_fd], [], [], remaining)
            if ready:
                chunk = os.read(self.read_fd, 1 << 20)
                if not chunk:
                    raise EOFError("chromium closed its DevTools pipe")
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, session: str) -> dict:
        deadline = time.monotonic() + TIMEOUT
        while True:
            for event in self.events:
                if event.get("method") == method and event.get("sessionId") == session:
                    self.events.remove(event)
                    return event
            self.events.append(self._read_message(deadline))

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        for fd in (self.write_fd, self.read_fd):
            os.close(fd)


class Page:
    """One tab, with everything it logged and fetched."""

    def __init__(self, browser: Browser, path: Path, javascript: bool = True):
        self.browser = browser
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 1000, "deviceScaleFactor": 1,
                                                         "mobile": False})
        if not javascript:
            self.call("Emulation.setScriptExecutionDisabled", {"value": True})
        self.url = path.resolve().as_uri()
        self.call("Page.navigate", {"url": self.url})
        browser.wait_for("Page.loadEventFired", self.session)

    def call(self, method: str, params: dict | None = None) -> dict:
        return self.browser.send(method, params, self.session)

    def set_width(self, width: int, height: int = 900) -> None:
        """The viewport of a desktop window (1,280 px and up) or a phone (below 600 px: mobile, touch)."""
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                         "mobile": width < 600})
        self.js("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")

    def click_at(self, x: float, y: float) -> None:
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def press(self, key: str, code: str, key_code: int, text: str) -> None:
        """A key pressed and released on whatever has the focus."""
        self.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": key, "code": code, "text": text,
                                             "windowsVirtualKeyCode": key_code})
        self.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code,
                                             "windowsVirtualKeyCode": key_code})

    def js(self, expression: str):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def errors(self) -> list[str]:
        """Exceptions, console.error/assert calls and error log entries seen on this page."""
        self.js("0")  # flush the events queued so far
        found = []
        for event in self.browser.events:
            if event.get("sessionId") != self.session:
                continue
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(str(params["exceptionDetails"]))
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(str(params.get("args")))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(params["entry"].get("text", ""))
        return found

    def requests(self) -> list[str]:
        self.js("0")
        return [e["params"]["request"]["url"] for e in self.browser.events
                if e.get("sessionId") == self.session and e.get("method") == "Network.requestWillBeSent"]

    def click(self, selector: str) -> None:
        """A real mouse click (pressed and released) at the middle of the element."""
        box = self.js(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView();"
                      " const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        self.click_at(*box)

    def click_beside_label(self, selector: str) -> None:
        """A real click inside a header cell but on none of its text: 3 px from its left edge, where
        the cell's padding is (its label, the sort button, sits further in)."""
        found = self.js(f"""(() => {{
            const cell = document.querySelector({json.dumps(selector)});
            cell.scrollIntoView({{block: "center", inline: "center"}});
            const r = cell.getBoundingClientRect(), x = r.left + 3, y = r.top + r.height / 2;
            return [x, y, document.elementFromPoint(x, y) === cell];
        }})()""")
        assert found[2], f"{selector}: the point beside the label is not the header cell itself"
        self.click_at(found[0], found[1])

    def screenshot(self, path: Path) -> bytes:
        size = self.call("Page.getLayoutMetrics")["cssContentSize"]
        data = base64.b64decode(self.call("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 6000), "scale": 1}})["data"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return data


@pytest.fixture(scope="module")
def browser(chromium, tmp_path_factory):
    opened = Browser(chromium, tmp_path_factory.mktemp("chromium-profile"))
    yield opened
    opened.close()


def column(page: Page, table: str, index: int, attribute: str | None = "data-value") -> list:
    read = f"c.getAttribute({json.dumps(attribute)})" if attribute else "c.textContent.trim()"
    return page.js(f"Array.from(document.querySelectorAll({json.dumps(table + ' tbody tr')}))"
                   f".map(r => {{ const c = r.cells[{index}]; return {read}; }})")


def header_index(page: Page, table: str, text: str) -> int:
    headers = page.js(f"Array.from(document.querySelectorAll({json.dumps(table + ' thead th')}))"
                      ".map(h => h.textContent.trim())")
    return headers.index(text)


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_leaderboard_in_chromium_sorts_on_click_and_logs_no_error(browser):
    page = Page(browser, GOLDEN / "leaderboard.html")
    table = "table.leaderboard"
    assert page.errors() == []
    assert set(page.requests()) == {page.url}  # the page itself, nothing fetched
    runs = column(page, table, 1)
    assert runs == ["rerank", "dense", "bm25-rm3", "bm25", "bm25-trunc", "random"]  # by AP, as generated
    shot = page.screenshot(ARTIFACTS / "leaderboard.png")
    width, height = png_size(shot)
    assert width >= 1200 and height > 400  # the viewport, less a scroll bar

    page.click(f"{table} thead th:nth-child(2) button")  # Run: text, A-Z first (on its label)
    assert column(page, table, 1) == sorted(runs)
    assert page.js(f"document.querySelector('{table} thead th:nth-child(2)').getAttribute('aria-sort')") == "ascending"
    page.click_beside_label(f"{table} thead th:nth-child(2)")  # anywhere in the cell sorts too
    assert column(page, table, 1) == sorted(runs, reverse=True)

    queries = header_index(page, table, "Queries")
    page.click_beside_label(f"{table} thead th:nth-child({queries + 1})")  # numbers: high first
    values = [float(v) for v in column(page, table, queries)]
    assert values == sorted(values, reverse=True) and values[-1] == 45
    p_column = header_index(page, table, "p (holm) vs top run")
    page.click_beside_label(f"{table} thead th:nth-child({p_column + 1})")
    assert column(page, table, p_column)[-1] == ""  # the baseline has no p-value: last either way
    page.screenshot(ARTIFACTS / "leaderboard-sorted.png")
    assert page.errors() == []


def test_names_sort_with_ascii_letters_case_folded_as_the_server_sorts_them(browser):
    """A walk's bm25_march sorted after every capital (BM25 ... SPLADE, then bm25_march) on irw serve's
    pages: names sort case folded there and on the report's pages alike."""
    page = Page(browser, GOLDEN / "leaderboard.html")
    table = "table.leaderboard"
    page.js(f"Array.from(document.querySelectorAll('{table} tbody tr')).forEach(r => {{ const c = r.cells[1]; "
            "c.setAttribute('data-value', {bm25: 'BM25', dense: 'Dense', random: 'RANDOM'}[c.getAttribute('data-value')]"
            " || c.getAttribute('data-value')); })")
    page.click(f"{table} thead th:nth-child(2) button")
    assert column(page, table, 1) == ["BM25", "bm25-rm3", "bm25-trunc", "Dense", "RANDOM", "rerank"]
    assert page.errors() == []


def test_a_header_sorts_from_the_keyboard(browser):
    page = Page(browser, GOLDEN / "leaderboard.html")
    table = "table.leaderboard"
    runs = column(page, table, 1)
    page.js(f"document.querySelector('{table} thead th:nth-child(2) button').focus()")
    assert page.js("document.activeElement.className") == "sort"
    page.press("Enter", "Enter", 13, "\r")
    assert column(page, table, 1) == sorted(runs)
    page.press(" ", "Space", 32, " ")
    assert column(page, table, 1) == sorted(runs, reverse=True)
    assert page.errors() == []


def test_run_page_in_chromium_sorts_the_per_query_table(browser):
    page = Page(browser, GOLDEN / "run-bm25-trunc.html")
    assert page.errors() == []
    assert set(page.requests()) == {page.url}
    table = "table.per-query"
    delta = header_index(page, table, "\u0394 AP")
    page.click_beside_label(f"{table} thead th:nth-child({delta + 1})")
    values = [float(v) for v in column(page, table, delta)]
    assert len(values) == 45 and values == sorted(values, reverse=True)
    page.click(f"{table} thead th:nth-child(1) button")
    queries = column(page, table, 0, attribute=None)
    assert queries == sorted(queries)
    # differences, precision-recall, ranks: each drawn wide and compact, one of them shown
    assert page.js("document.querySelectorAll('svg.chart:not(.compact)').length") == 3
    assert page.js("Array.from(document.querySelectorAll('svg.chart')).filter(s => s.getClientRects().length)"
                   ".length") == 3
    shot = page.screenshot(ARTIFACTS / "run-page.png")
    assert png_size(shot)[1] > 1000
    assert page.errors() == []


def type_text(page: Page, text: str) -> None:
    """Text typed into whatever has the focus, as a keyboard would (input events included)."""
    page.call("Input.insertText", {"text": text})


def shown_runs(page: Page) -> list[str]:
    return page.js("Array.from(document.querySelectorAll('table.leaderboard tbody tr'))"
                   ".filter(r => !r.hidden).map(r => r.cells[1].getAttribute('data-value'))")


def test_leaderboard_filter_box_keeps_the_runs_and_systems_typed(browser):
    page = Page(browser, GOLDEN / "leaderboard.html")
    assert page.js("document.querySelector('.filter').hidden") is False
    # from the top of the page, Tab reaches the box first (before the sort buttons)
    page.js("document.activeElement.blur()")
    page.press("Tab", "Tab", 9, "")
    assert page.js("document.activeElement.id") == "run-filter"
    type_text(page, "BM25")  # runs bm25, bm25-rm3, bm25-trunc (their system is bm25 too)
    assert shown_runs(page) == ["bm25-rm3", "bm25", "bm25-trunc"]
    assert page.js("document.querySelector('.filter-count').textContent") == "3 of 6 runs shown"
    type_text(page, " trunc")  # every word must be there
    assert shown_runs(page) == ["bm25-trunc"]
    page.click("table.leaderboard thead th:nth-child(2) button")  # sorting keeps the filter
    assert shown_runs(page) == ["bm25-trunc"]
    page.js("document.getElementById('run-filter').focus()")
    page.press("Escape", "Escape", 27, "")
    assert len(shown_runs(page)) == 6 and page.js("document.getElementById('run-filter').value") == ""
    assert page.js("document.querySelector('.filter-count').textContent") == "6 runs"
    for width in WIDTHS:
        page.set_width(width)
        box = page.js("(() => { const r = document.getElementById('run-filter').getBoundingClientRect();"
                      " return [r.left, r.right, r.width]; })()")
        assert box[0] >= 0 and box[1] <= page.js("document.documentElement.clientWidth") and box[2] > 150, (width, box)
        assert page.js(GEOMETRY) == [], width
    page.screenshot(ARTIFACTS / "leaderboard-filter-390.png")
    assert page.errors() == []


SORT_TIMING = """(() => {
  const th = document.querySelectorAll('table.leaderboard thead th')[%d];
  const start = performance.now();
  th.click();
  document.body.offsetHeight;  // the layout of the moved rows too
  return performance.now() - start;
})()"""


@pytest.mark.thousand_runs
def test_a_1000_run_leaderboard_sorts_and_filters_in_chromium(browser, report_line):
    """The 1,000-run page of tests/many_runs_data.py: every column sorts, the filter works, the page
    fits 1,280 and 390 px. How long a sort takes is measured and shown in the run's summary, not asserted."""
    from many_runs_data import thousand_runs

    path = thousand_runs()["leaderboard"]
    page = Page(browser, path)
    assert page.errors() == [] and set(page.requests()) == {page.url}
    table = "table.leaderboard"
    assert page.js(f"document.querySelectorAll('{table} tbody tr').length") == 1000
    timings = {}
    for name in ("AP", "Run", "Date", "nDCG@10"):
        column_index = header_index(page, table, name)
        for direction in ("first", "second"):
            timings[f"{name} ({direction} click)"] = page.js(SORT_TIMING % column_index)
            values = column(page, table, column_index)
            assert len(values) == 1000
        if name in ("AP", "nDCG@10"):
            numbers = [float(v) for v in values]
            assert numbers == sorted(numbers)  # high first, then the second click reverses it
        else:
            assert values == sorted(values, reverse=True)
    type_text_into = "document.getElementById('run-filter').focus()"
    page.js(type_text_into)
    start = page.js("performance.now()")
    type_text(page, "team_07 dense")
    filtered = page.js("performance.now()") - start
    names = shown_runs(page)
    systems = page.js("Array.from(document.querySelectorAll('table.leaderboard tbody tr'))"
                      ".filter(r => !r.hidden).map(r => r.cells[2].textContent.trim())")
    assert names and all(s == "team_07_dense_retrieval" for s in systems)
    for width in WIDTHS:
        page.set_width(width)
        assert page.js(GEOMETRY) == [], width
    page.screenshot(ARTIFACTS / "leaderboard-1000.png")
    assert page.errors() == []
    size = path.stat().st_size
    report_line(f"1,000-run leaderboard ({size:,} bytes) in headless Chromium: sorting 1,000 rows took "
                + ", ".join(f"{k} {v:.1f} ms" for k, v in timings.items())
                + f"; typing a filter (13 characters, {len(names)} rows left) {filtered:.1f} ms")


@pytest.mark.thousand_runs
def test_a_1000_run_history_fits_a_desktop_and_a_phone(browser):
    from many_runs_data import thousand_runs

    page = Page(browser, thousand_runs()["history"])
    assert page.errors() == [] and set(page.requests()) == {page.url}
    # one chart, drawn twice: wide, and compact for a phone (CSS shows one of them)
    assert page.js("document.querySelectorAll('svg.chart:not(.compact)').length") == 1
    assert page.js("document.querySelectorAll('#history-runs tbody tr').length") == 1000
    page.js("document.getElementById('history-filter').focus()")
    type_text(page, "team_05_ learned")
    systems = page.js("Array.from(document.querySelectorAll('#history-runs tbody tr')).filter(r => !r.hidden)"
                      ".map(r => r.cells[0].textContent.trim())")
    assert systems and set(systems) == {"team_05_learned_sparse"}
    for width in WIDTHS:
        page.set_width(width)
        assert page.js(GEOMETRY) == [], width
        # the chart is on screen, or (on a phone, where it keeps its own size so its text stays
        # readable, issue 26) inside its figure, which is on screen and scrolls sideways
        chart = page.js("""(() => { const svg = Array.from(document.querySelectorAll('svg.chart'))
                .find(s => s.getClientRects().length), box = svg.closest('figure'),
            r = svg.getBoundingClientRect(), f = box.getBoundingClientRect();
            return [r.left, r.right, f.left, f.right, box.scrollWidth > box.clientWidth,
                    r.width / svg.viewBox.baseVal.width]; })()""")
        screen = page.js("document.documentElement.clientWidth")
        on_screen = chart[0] >= 0 and chart[1] <= screen
        assert on_screen or (chart[2] >= 0 and chart[3] <= screen and chart[4]), (width, chart)
        assert chart[5] * 11 >= 10, (width, chart)  # tick labels (11 px) at least 10 px
    page.screenshot(ARTIFACTS / "history-1000-390.png")
    assert page.errors() == []


def test_reports_read_with_javascript_off(browser):
    for name, rows in (("leaderboard.html", 6), ("run-bm25-trunc.html", 45)):
        page = Page(browser, GOLDEN / name, javascript=False)
        # no sort buttons (the script did not run), yet every row and chart is there and laid out
        assert page.js("document.querySelectorAll('th button.sort').length") == 0
        table = "table.leaderboard" if name == "leaderboard.html" else "table.per-query"
        assert page.js(f"document.querySelectorAll('{table} tbody tr').length") == rows
        assert page.js(f"document.querySelector('{table}').getBoundingClientRect().height") > rows * 15
        assert page.errors() == []
    page.screenshot(ARTIFACTS / "run-page-no-js.png")


# -- the reports of real data: TREC DL 2019 passage, six runs, at a desktop's and a phone's width ----
LONG_NAME = "BM25_" + "tuned_k1_0.82_b_0.68_with_rm3_fb_docs_10_fb_terms_10_x"  # 60 characters
WIDTHS = (1280, 390)
# Each figure's charts: how many drawings show (a chart with a compact drawing for a phone has two,
# CSS showing one), whether the shown one fits its figure and the screen without scrolling, and the
# scale it is drawn at (its text's size over the size asked for).
CHARTS_FIT = """(() => Array.from(document.querySelectorAll('figure')).map(f => {
  const shown = Array.from(f.querySelectorAll('svg.chart')).filter(s => s.getClientRects().length);
  if (!shown.length) return [0, false, 0];
  const r = shown[0].getBoundingClientRect(), width = document.documentElement.clientWidth;
  return [shown.length, f.scrollWidth <= f.clientWidth + 0.5 && r.left >= -0.5 && r.right <= width + 0.5,
          r.width / shown[0].viewBox.baseVal.width];
}))()"""
# Every header cell of every table (closed <details> opened first) is inside the viewport, or inside
# a box that scrolls sideways (scrollWidth > clientWidth) and is itself inside the viewport; the
# page itself never scrolls sideways. Returns what breaks that, as text.
GEOMETRY = """(() => {
  document.querySelectorAll("details").forEach(d => { d.open = true; });
  const root = document.documentElement, width = root.clientWidth, problems = [];
  if (root.scrollWidth > width) problems.push(`the page scrolls sideways: ${root.scrollWidth} > ${width}`);
  const inside = r => r.left >= -0.5 && r.right <= width + 0.5;
  document.querySelectorAll("table").forEach((table, t) => {
    table.querySelectorAll("thead th").forEach(th => {
      const r = th.getBoundingClientRect(), name = `table ${t} (${table.className}) header '${th.textContent.trim()}'`;
      if (r.width === 0) { problems.push(`${name} is not laid out`); return; }
      let box = th.parentElement;
      while (box && box !== document.body && !["auto", "scroll"].includes(getComputedStyle(box).overflowX)) box = box.parentElement;
      const scrolls = box && box !== document.body;
      if (scrolls && box.scrollWidth > box.clientWidth) {
        if (!inside(box.getBoundingClientRect())) problems.push(`${name}: its scrolling box leaves the screen`);
      } else if (!inside(r)) {
        problems.push(`${name} is cut off: ${Math.round(r.left)}..${Math.round(r.right)} of ${width}`);
      }
    });
  });
  return problems;
})()"""


def cli(*args) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, f"irw {' '.join(map(str, args))}: {result.stderr}"
    return result.stderr


@pytest.fixture(scope="module")
def dl19(tmp_path_factory) -> dict[str, Path]:
    """The user's path on the DL19 files: ingest the qrels and each run with --name, a 60-character
    run of system BM25 beside them (the BM25 file with another tag), then every report."""
    source = require_conformance() / "dl19-passage"
    work = tmp_path_factory.mktemp("dl19")
    db = work / "irw.duckdb"
    cli("ingest", "qrels", source / "qrels.dl19-passage.txt", "--name", "dl19", "--db", db)
    names = []
    for run in sorted((source / "runs").glob("run.dl19.*.txt")):
        name = run.name[len("run.dl19."):-len(".txt")]
        cli("ingest", "run", run, "--name", name, "--db", db)
        names.append(name)
    assert len(names) == 6
    longer = work / "run.long.txt"
    longer.write_text((source / "runs" / "run.dl19.BM25.txt").read_text().replace(" rank\n", " long\n"))
    cli("ingest", "run", longer, "--name", LONG_NAME, "--system", "BM25", "--db", db)
    site = work / "site"
    cli("report", "leaderboard", "--qrels", "dl19", "-m", "nDCG@10", "-m", "AP", "-o", site / "dl19.html", "--db", db)
    cli("report", "compare", *names, LONG_NAME, "--baseline", "BM25", "--qrels", "dl19", "-m", "nDCG@10", "-m", "AP",
        "-o", site / "compare.html", "--db", db)
    cli("report", "history", "--qrels", "dl19", "-m", "nDCG@10", "-o", site / "history.html", "--db", db)
    cli("report", "systems", "-m", "nDCG@10", "-o", site / "systems.html", "--db", db)
    return {"leaderboard": site / "dl19.html", "compare": site / "compare.html", "history": site / "history.html",
            "systems": site / "systems.html",
            "run": site / "dl19_runs" / "SPLADE_P_P_ENSEMBLE_DISTIL.html",
            "long run": site / "dl19_runs" / f"{LONG_NAME}.html", "shots": tmp_path_factory.mktemp("screenshots")}


def test_dl19_reports_fit_a_desktop_and_a_phone(browser, dl19, report_line):
    # seven long names make no title: the compare page's heading counts them, its table lists them
    assert "<h1>Compare 7 runs <span" in dl19["compare"].read_text(encoding="utf-8")
    shots = []
    for name in ("leaderboard", "compare", "run", "long run", "history", "systems"):
        page = Page(browser, dl19[name])
        assert page.errors() == [] and set(page.requests()) == {page.url}, name
        for width in WIDTHS:
            page.set_width(width)
            assert page.js("window.innerWidth") == width
            assert page.js(GEOMETRY) == [], (name, width)
            # a legend's marker keeps its size beside a long name (a lab walk: squeezed to a few pixels)
            assert set(page.js("Array.from(document.querySelectorAll('svg.legend'))"
                               ".filter(s => s.getClientRects().length).map(s => s.getBoundingClientRect().width)")) <= {28}
            for figure in page.js(CHARTS_FIT):
                drawings, fits, scale = figure
                # one drawing shown, whole, text at 10 px or more (a walk found the run page's three
                # charts 720 wide in a 366 px figure on a phone: half of each scrolled out of sight)
                assert drawings == 1 and fits and scale * 11 >= 10, (name, width, figure)
            shot = dl19["shots"] / f"{name.replace(' ', '-')}-{width}.png"
            assert width - 20 <= png_size(page.screenshot(shot))[0] <= width  # less a scroll bar at most
            shots.append(shot)
        # printed (Letter's printable width at the default margins is about 700 px): the wide drawing
        # alone, whole (it scrolled inside its figure, cut at the page's edge: a regression walk)
        page.call("Emulation.setEmulatedMedia", {"media": "print"})
        page.set_width(700)
        for drawings, fits, scale in page.js(CHARTS_FIT):
            assert drawings == 1 and fits, (name, "print", drawings, fits, scale)
        assert page.js("document.querySelectorAll('svg.chart.compact')").__len__() == 0 or page.js(
            "Array.from(document.querySelectorAll('svg.chart.compact')).every(s => !s.getClientRects().length)")
        page.call("Emulation.setEmulatedMedia", {"media": ""})
        assert page.errors() == [], name
    report_line(f"DL19 screenshots: {dl19['shots']}")
    assert len(shots) == 12


# the right edge of each value of a numeric column, its marker (<sup>) left out, per column
VALUE_EDGES = """(() => {
  const table = document.querySelector('table');
  const edges = {};
  table.querySelectorAll('tbody tr').forEach(row => Array.from(row.cells).forEach((cell, index) => {
    if (!cell.classList.contains('num')) return;
    const range = document.createRange();
    const shown = Array.from(cell.childNodes).filter(node => node.nodeName !== 'SUP');
    range.setStartBefore(shown[0]);
    range.setEndAfter(shown[shown.length - 1]);
    (edges[index] = edges[index] || []).push(range.getBoundingClientRect().right);
  }));
  return Object.values(edges);
})()"""


def test_dl19_systems_values_line_up_whether_marked_or_not(browser, dl19):
    """A lab walk: on the systems page, a value marked * (the system has several runs on the set:
    BM25 here, with the 60-character run) stood a marker's width left of the values above and below
    it in a right-aligned column."""
    page = Page(browser, dl19["systems"])
    assert "<sup>*</sup>" in dl19["systems"].read_text(encoding="utf-8")
    for width in WIDTHS:
        page.set_width(width)
        columns = page.js(VALUE_EDGES)
        assert columns and all(len(edges) == 6 for edges in columns), columns
        for edges in columns:
            assert max(edges) - min(edges) < 0.5, (width, edges)
        # and a marker does not lower a row's values below its other cells' text (a regression hunt)
        tops = page.js("""Array.from(document.querySelector('table').tBodies[0].rows).map(row =>
            Array.from(row.cells).map(cell => {
              const range = document.createRange();
              const shown = Array.from(cell.childNodes).filter(node => node.nodeName !== 'SUP');
              range.setStartBefore(shown[0]);
              range.setEndAfter(shown[shown.length - 1]);
              return range.getClientRects()[0].top;
            }))""")
        assert all(max(row) - min(row) < 0.5 for row in tops), (width, tops)


def test_dl19_leaderboard_shows_every_column_on_a_desktop(browser, dl19):
    """At 1,280 and 1,920 px nothing needs scrolling: every header cell is on screen, none in a
    scrolling box, and the table is not squeezed into a capped column in the middle of the page."""
    page = Page(browser, dl19["leaderboard"])
    table = "table.leaderboard"
    heads = page.js(f"Array.from(document.querySelectorAll('{table} thead th')).map(h => h.textContent.trim())")
    assert heads[-4:] == ["p (holm) vs top run", "Queries", "Judged@10", "Date"]
    assert "System" in heads  # the six DL19 runs are their own systems, the 60-character one is BM25's
    for width in (1280, 1920):
        page.set_width(width)
        boxes = page.js(f"Array.from(document.querySelectorAll('{table} thead th')).map(h => {{"
                        " const r = h.getBoundingClientRect(); return [r.left, r.right]; })")
        viewport = page.js("document.documentElement.clientWidth")
        assert all(0 <= left and right <= viewport for left, right in boxes), (width, boxes)
        wrap = page.js(f"(() => {{ const w = document.querySelector('{table}').parentElement;"
                       " return [w.scrollWidth, w.clientWidth, w.getBoundingClientRect().width]; })()")
        assert wrap[0] <= wrap[1] and wrap[2] >= viewport - 100, (width, wrap)  # the page's width, not 1,180 px
    # the 60-character run and its long system are shown whole (broken over lines at most)
    assert LONG_NAME in page.js(f"document.querySelector('{table}').textContent")


def test_dl19_header_cells_sort_where_there_is_no_label(browser, dl19):
    page = Page(browser, dl19["leaderboard"])
    table = "table.leaderboard"
    for width in WIDTHS:
        page.set_width(width)
        ap = header_index(page, table, "AP")
        page.click_beside_label(f"{table} thead th:nth-child({ap + 1})")
        values = [float(v) for v in column(page, table, ap)]
        assert len(values) == 7 and values == sorted(values, reverse=True), width
        page.click_beside_label(f"{table} thead th:nth-child({ap + 1})")
        assert [float(v) for v in column(page, table, ap)] == sorted(values), width
    # the run page's per-query table, inside its scrolling box on a phone
    page = Page(browser, dl19["long run"])
    page.set_width(390)
    table = "table.per-query"
    delta = header_index(page, table, "\u0394 nDCG@10")
    page.click_beside_label(f"{table} thead th:nth-child({delta + 1})")
    values = [float(v) for v in column(page, table, delta)]
    assert len(values) == 43 and values == sorted(values, reverse=True)
    assert page.errors() == []


def test_a_run_stored_without_its_rows_says_why_on_its_page_and_fits(browser, dl19, tmp_path):
    # what `irw eval --engine spark --into` leaves (tests/test_spark_into.py): the run's scores, no
    # rows (schema 011); made here from the DL19 warehouse by removing the long-named run's rows
    db = tmp_path / "spark.duckdb"
    db.write_bytes((dl19["leaderboard"].parent.parent / "irw.duckdb").read_bytes())
    with warehouse.open(db) as wh:
        (run_id,) = wh.db.fetchone("select run_id from runs where name = ?", [LONG_NAME])
        for table in ("judged_run_rows", "run_rows"):
            wh.db.execute(f"delete from {table} where run_id = ?", [run_id])
        wh.db.execute("update runs set rows_stored = false where run_id = ?", [run_id])
    site = tmp_path / "site"
    cli("report", "leaderboard", "--qrels", "dl19", "-m", "nDCG@10", "-m", "AP", "--baseline", "BM25",
        "-o", site / "board.html", "--db", db)
    page = Page(browser, site / "board_runs" / f"{LONG_NAME}.html")
    assert page.errors() == []
    note = "document.querySelector('p.rows-not-stored')"
    assert page.js(f"{note}.textContent").startswith(f"The rows of {LONG_NAME} are not in this warehouse")
    assert page.js("document.querySelectorAll('table.relevant').length") == 0  # no ranks to show
    for width in WIDTHS:
        page.set_width(width)
        assert page.js(GEOMETRY) == [], width
        box = page.js(f"(() => {{ const r = {note}.getBoundingClientRect(); return [r.left, r.right]; }})()")
        assert 0 <= box[0] and box[1] <= width, (width, box)


# The lines a cell's text is laid out on, as text: each character's box (a Range over it), a new line
# where a box starts below the previous one. Cells of every table in <main> whose class is "run".
NAME_LINES = """(() => Array.from(document.querySelectorAll(%s)).map(td => {
  const lines = [], walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
  let top = null;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest(".tag, .desc")) continue;
    for (let i = 0; i < node.data.length; i++) {
      const range = document.createRange();
      range.setStart(node, i); range.setEnd(node, i + 1);
      const box = range.getClientRects()[0];
      if (!box) continue;
      if (top === null || box.top > top + 2) { lines.push(""); top = box.top; }
      lines[lines.length - 1] += node.data[i];
    }
  }
  return lines;
}))()"""
# a score (0.1234) in a table of <main>, all of its cell on the first screen
FIRST_SCREEN_SCORE = """(() => {
  const w = document.documentElement.clientWidth, h = window.innerHeight;
  for (const td of document.querySelectorAll("main table tbody td.num")) {
    const r = td.getBoundingClientRect();
    if (/^-?\\d\\.\\d{4}$/.test(td.textContent.trim()) && r.top >= 0 && r.bottom <= h && r.left >= 0 && r.right <= w)
      return td.textContent.trim();
  }
  return null;
})()"""
COMPARISON_HEADS = ["Measure", "Run", "Baseline", "Queries", "Run mean", "Baseline mean", "\u0394", "CI", "p",
                    "p corrected", "Significant", "Wins / ties / losses"]


def assert_compare_page_reads_well(page: Page, longest: str) -> None:
    """The compare page at 1,280 px: every column of the paired tests on screen (none scrolled to),
    the longest real run name (SPLADE_P_P_ENSEMBLE_DISTIL) on one line wherever it is shown; at 390
    px a score on the first screen; at both, run and system names broken only after _ - / : ., never
    inside a word, and every header on screen or in its own scrolling box (GEOMETRY)."""
    table = "table.comparison"
    heads = page.js(f"Array.from(document.querySelectorAll('{table} thead th')).map(h => h.textContent.trim())")
    assert heads == COMPARISON_HEADS
    for width, height in ((1280, 1000), (390, 844)):
        page.set_width(width, height)
        page.js("window.scrollTo(0, 0)")
        score = page.js(FIRST_SCREEN_SCORE)
        assert page.js(GEOMETRY) == [], width
        page.js("document.querySelectorAll('details.choices').forEach(d => { d.open = false; })")  # served pages
        cells = page.js(NAME_LINES % json.dumps("main td.run"))
        assert any("".join(lines) == longest for lines in cells), width
        for lines in cells:
            assert all(line[-1] in "_-/:." for line in lines[:-1]), (width, lines)  # never mid-word
            if width == 1280 and "".join(lines) == longest:
                assert lines == [longest], width
        if width == 1280:
            boxes = page.js(f"Array.from(document.querySelectorAll('{table} thead th')).map(h => {{"
                            " const r = h.getBoundingClientRect(); return [h.textContent.trim(), r.left, r.right]; })")
            viewport = page.js("document.documentElement.clientWidth")
            assert all(0 <= left and right <= viewport for _, left, right in boxes), boxes
            ci = page.js(f"document.querySelector('{table} tbody td:nth-child(8)').textContent.trim()")
            assert ci.startswith("[") and ci.endswith("]") and ", " in ci, ci
        else:
            assert score is not None, width


def test_dl19_compare_page_reads_well_on_a_desktop_and_a_phone(browser, dl19):
    page = Page(browser, dl19["compare"])
    assert_compare_page_reads_well(page, "SPLADE_P_P_ENSEMBLE_DISTIL")
    for width in WIDTHS:
        page.set_width(width)
        page.screenshot(dl19["shots"] / f"compare-names-{width}.png")
    assert page.errors() == []


def test_dl19_names_break_only_after_separators_on_every_page(browser, dl19):
    """Run and system names in tables (the leaderboard's, history's, a run page's headers) go over
    lines only after _ - / : . or a space, at 1,280 and 390 px: at 390 px the leaderboard showed
    REP_LL / AMA and the baseline tag as baseli / ne (CSS overflow-wrap: anywhere)."""
    for name in ("leaderboard", "history", "run", "long run", "compare"):
        page = Page(browser, dl19[name])
        for width in WIDTHS:
            page.set_width(width)
            cells = page.js(NAME_LINES % json.dumps("main td.run, main th.wrap"))
            assert cells, (name, width)
            for lines in cells:
                for line, after in zip(lines, lines[1:]):
                    assert line[-1] in "_-/:. " or after[0] == " ", (name, width, lines)
            tags = page.js("Array.from(document.querySelectorAll('main .tag')).map(t =>"
                           " new Set(Array.from(t.getClientRects()).map(r => Math.round(r.top))).size)")
            assert all(count == 1 for count in tags), (name, width, tags)
        assert page.errors() == [], name


def test_dl19_leaderboard_keeps_the_baseline_option_on_one_line_on_a_phone(browser, dl19):
    """`--baseline RUN` in the note under the leaderboard's heading is one piece at 1,280 and 390 px:
    it broke after `--` on a phone (issue 26)."""
    page = Page(browser, dl19["leaderboard"])
    code = "Array.from(document.querySelectorAll('p.baseline-note code'))"
    assert page.js(f"{code}.map(c => c.textContent)") == ["--baseline RUN"]
    lines = f"{code}.map(c => new Set(Array.from(c.getClientRects()).map(r => Math.round(r.top))).size)"
    for width in WIDTHS:
        page.set_width(width)
        assert page.js(lines) == [1], width
    # wherever the line ends: the note at every width a phone may give it, 200 to 390 px
    page.set_width(390)
    broken = page.js(f"""(() => {{ const p = document.querySelector('p.baseline-note'), out = [];
        for (let w = 200; w <= 390; w++) {{ p.style.width = w + 'px'; if ({lines}[0] !== 1) out.push(w); }}
        return out; }})()""")
    assert broken == []
    assert page.errors() == []


def test_dl19_history_overview_names_and_colours_each_system(browser, dl19):
    """History's "All runs" chart: each system's name in its legend, and its dots in a colour (and
    marker) of their own, read from the SVG without JavaScript (issue 26)."""
    page = Page(browser, dl19["history"], javascript=False)
    figure = "document.querySelector('main figure')"
    legend = page.js(f"Array.from({figure}.querySelectorAll('ul.legend li')).map(li => li.textContent.trim())")
    systems = ["BM25", "BM25_RM3", "D_BERT_KD_TASB", "OPEN_AI_ADA2", "REP_LLAMA", "SPLADE_P_P_ENSEMBLE_DISTIL"]
    assert legend == systems + ["best so far"]
    dots = page.js(f"""Array.from({figure}.querySelectorAll('svg.chart path.marker')).map(p => {{
        const style = getComputedStyle(p);
        return [p.querySelector('title').textContent, style.stroke, style.fill]; }})""")
    assert len(dots) == 7
    colour = {}
    for title, stroke, fill in dots:
        system = title.split(":")[0] if ":" in title.split(" (")[0] else title.split(" (")[0]
        colour.setdefault(system, set()).add(stroke)
    assert set(colour) == set(systems) and all(len(c) == 1 for c in colour.values()), colour
    assert colour["BM25"] != colour["REP_LLAMA"]  # two systems, two colours
    assert page.errors() == []


# -- one collection's runs from every system folder (../shared/conformance/multi-collection) ---------
COVID_SYSTEMS = ("BM25", "BM25_RM3", "SPLADE_P_P_ENSEMBLE_DISTIL")


@pytest.fixture(scope="module")
def covid_boards(tmp_path_factory) -> dict[str, Path]:
    """The covid leaderboard of `irw ingest run runs/*/trec_results_covid.txt`, named by the rule
    (BM25.trec_results_covid, system BM25, ...) and by the template that gives the names the rule
    gave before (trec_results_covid.BM25, system trec_results_covid: the file name first)."""
    source = require_conformance() / "multi-collection"
    work = tmp_path_factory.mktemp("covid")
    paths = [source / "runs" / s / "trec_results_covid.txt" for s in COVID_SYSTEMS]
    boards = {}
    for kind, naming in (("rule", []), ("file first", ["--name-template", "{short}.{folder}", "--system", "{short}"])):
        db = work / f"{kind.replace(' ', '-')}.duckdb"
        cli("ingest", "qrels", source / "qrels" / "qrels.beir-v1.0.0-trec-covid.test.txt", "--name", "covid", "--db", db)
        cli("ingest", "run", *paths, *naming, "--db", db)
        boards[kind] = work / kind.replace(" ", "-") / "covid.html"
        cli("report", "leaderboard", "--qrels", "covid", "-o", boards[kind], "--db", db)
    return boards


def name_cells(page: Page) -> list[tuple[str, list[str]]]:
    """(run, [its Run cell's lines, its System cell's lines]) per leaderboard row."""
    cells = page.js(NAME_LINES % json.dumps("table.leaderboard td.run"))
    return [("".join(run), [run, system]) for run, system in zip(cells[::2], cells[1::2])]


@pytest.mark.parametrize("kind", ["rule", "file first"])
def test_covid_names_wrap_only_where_they_must_on_a_desktop_and_a_phone(browser, covid_boards, kind):
    """The leaderboard of three real systems' covid runs at 1,280 and 390 px: names break only after
    _ - / : ., the tag stays on one line, and at 1,280 px a name of up to 20 characters is never
    broken (the System column broke trec_results_ / covid while the Run column beside it had room
    to spare). At 390 px a piece between break points wider than the phone's 7.5em name column was
    broken inside (trec_results_covid.SPLADE_... gave covid.SPLA / DE_; a team's nightly
    BM25.dl21.2026-11-03 gave BM25.dl21.2 / 026-11-03): a dot is a break point too."""
    page = Page(browser, covid_boards[kind])
    for width in WIDTHS:
        page.set_width(width)
        assert page.js(GEOMETRY) == [], width
        rows = name_cells(page)
        assert len(rows) == 3
        for run, (run_lines, system_lines) in rows:
            for lines in (run_lines, system_lines):
                assert all(line[-1] in "_-/:." for line in lines[:-1]), (width, lines)  # never mid-word
            if width == 1280:
                for lines in (run_lines, system_lines):
                    assert len("".join(lines)) > 20 or len(lines) == 1, (width, lines)
                assert len(run_lines) <= 2 and len(system_lines) <= 2, (width, run_lines, system_lines)
        # the baseline's name in the note above the table (SPLADE_P_P_ENSEMBLE_DISTIL.trec_result / s_covid
        # at 390 px, where only the table's cells were breakable)
        baseline = page.js(NAME_LINES % json.dumps("p.baseline-note strong"))
        top_run = ("SPLADE_P_P_ENSEMBLE_DISTIL.trec_results_covid" if kind == "rule"
                   else "trec_results_covid.SPLADE_P_P_ENSEMBLE_DISTIL")
        assert ["".join(lines) for lines in baseline] == [top_run], (width, baseline)
        assert all(line[-1] in "_-/:." for line in baseline[0][:-1]), (width, baseline)
        tags = page.js("Array.from(document.querySelectorAll('main .tag')).map(t =>"
                       " new Set(Array.from(t.getClientRects()).map(r => Math.round(r.top))).size)")
        assert tags == [1], (width, tags)
        page.screenshot(ARTIFACTS / f"covid-{kind.replace(' ', '-')}-{width}.png")
    systems = {"".join(system) for _, (_, system) in name_cells(page)}
    assert systems == (set(COVID_SYSTEMS) if kind == "rule" else {"trec_results_covid"})
    assert page.errors() == []
