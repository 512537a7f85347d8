"""The reports in a real browser: headless Chromium over the DevTools protocol (a pipe, no extra packages).

It opens the golden leaderboard and run page (tests/golden, the demo data's reports), checks that
nothing is logged as an error and nothing is fetched, clicks column headers and reads the new row
order, reads the pages with JavaScript off, and saves screenshots under test-artifacts/ (git-ignored).

Chromium is Debian's `chromium` package; when it is missing and this runs as root with apt-get, the
set-up installs it (`apt-get update && apt-get install -y chromium`), else the tests are skipped
with the reason.
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

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "golden"
ARTIFACTS = REPO / "test-artifacts"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
TIMEOUT = 20.0


def find_chromium() -> str | None:
    return next((shutil.which(name) for name in BROWSERS if shutil.which(name)), None)


def install_chromium() -> str:
    """Debian's chromium, when we may install it; the reason it cannot be had otherwise."""
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return "chromium is not installed and this is not root with apt-get (install Debian's chromium package)"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
        try:
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"could not install chromium: {' '.join(command)}: {exc}"
        if done.returncode != 0:
            return f"could not install chromium: {' '.join(command)} exited {done.returncode}: {done.stderr[-300:]}"
    return ""


@pytest.fixture(scope="module")
def chromium() -> str:
    binary = find_chromium()
    if binary is None:
        reason = install_chromium()
        binary = find_chromium()
        if binary is None:
            pytest.skip(reason or "chromium could not be installed")
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
            [binary, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
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

    def js(self, expression: str):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
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
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1], "button": "left",
                                                   "clickCount": 1})

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
    started = time.monotonic()
    page = Page(browser, GOLDEN / "leaderboard.html")
    table = "table.leaderboard"
    assert page.errors() == []
    assert set(page.requests()) == {page.url}  # the page itself, nothing fetched
    runs = column(page, table, 1)
    assert runs == ["rerank", "dense", "bm25-rm3", "bm25", "bm25-trunc", "random"]  # by AP, as generated
    shot = page.screenshot(ARTIFACTS / "leaderboard.png")
    width, height = png_size(shot)
    assert width >= 1200 and height > 400  # the viewport, less a scroll bar

    page.click(f"{table} thead th:nth-child(2) button")  # Run: text, A-Z first
    assert column(page, table, 1) == sorted(runs)
    assert page.js(f"document.querySelector('{table} thead th:nth-child(2)').getAttribute('aria-sort')") == "ascending"
    page.click(f"{table} thead th:nth-child(2) button")
    assert column(page, table, 1) == sorted(runs, reverse=True)

    queries = header_index(page, table, "Queries")
    page.click(f"{table} thead th:nth-child({queries + 1}) button")  # numbers: high first
    values = [float(v) for v in column(page, table, queries)]
    assert values == sorted(values, reverse=True) and values[-1] == 45
    p_column = header_index(page, table, "p (holm)")
    page.click(f"{table} thead th:nth-child({p_column + 1}) button")
    assert column(page, table, p_column)[-1] == ""  # the baseline has no p-value: last either way
    page.screenshot(ARTIFACTS / "leaderboard-sorted.png")
    assert page.errors() == []
    assert time.monotonic() - started < 60


def test_run_page_in_chromium_sorts_the_per_query_table(browser):
    page = Page(browser, GOLDEN / "run-bm25-trunc.html")
    assert page.errors() == []
    assert set(page.requests()) == {page.url}
    table = "table.per-query"
    delta = header_index(page, table, "\u0394 AP")
    page.click(f"{table} thead th:nth-child({delta + 1}) button")
    values = [float(v) for v in column(page, table, delta)]
    assert len(values) == 45 and values == sorted(values, reverse=True)
    page.click(f"{table} thead th:nth-child(1) button")
    queries = column(page, table, 0, attribute=None)
    assert queries == sorted(queries)
    assert page.js("document.querySelectorAll('svg.chart').length") == 3  # differences, precision-recall, ranks
    shot = page.screenshot(ARTIFACTS / "run-page.png")
    assert png_size(shot)[1] > 1000
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
