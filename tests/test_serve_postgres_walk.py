"""`irw serve` over a team's PostgreSQL warehouse, as a user walked it: a dashboard role that only
reads is told which `irw eval` a role that may write must run (a command that runs when pasted with
IRW_DB set, never the URL with its password masked), each problem on a line of its own and the
command wrapped within a phone's screen; a database server that cannot be reached is a 503, as a
busy DuckDB file is; a run name of 300 characters in the Baseline list does not widen the page.
"""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
from contextlib import contextmanager
from html import unescape
from pathlib import Path
from typing import Iterator
from urllib.parse import quote, urlsplit, urlunsplit

import pytest

import warehouse
from conftest import postgres_url_with
from test_browser import GEOMETRY, browser, chromium  # noqa: F401 - the fixtures
from test_serve import RUNS, ServedPage, get, get_json, served

PHONE, NARROW = 390, 500
LONG_NAME = "x" * 300

# The page's own width against what it holds: whether it scrolls sideways, and the right edge of
# each command and field, which must stay on screen.
EDGES = """(() => {
  document.querySelectorAll("details").forEach(d => { d.open = true; });
  const root = document.documentElement;
  return {scroll: root.scrollWidth, width: root.clientWidth,
          right: Array.from(document.querySelectorAll("pre, code, select, input"))
                      .map(e => Math.round(e.getBoundingClientRect().right))};
})()"""


def ingest_dl19(url: str, dl19: Path, runs=RUNS[:2], long_name: bool = False) -> None:
    with warehouse.open(url) as wh:
        wh.ingest_qrels(dl19 / "qrels.dl19-passage.txt", "dl19")
        wh.ingest_runs([dl19 / "runs" / f"run.dl19.{run}.txt" for run in runs])
        if long_name:
            wh.ingest_run(dl19 / "runs" / "run.dl19.BM25.txt", LONG_NAME)


def assert_fits(page: ServedPage, widths=(NARROW, PHONE)) -> None:
    for width in widths:
        page.set_width(width, 844)
        edges = page.js(EDGES)
        assert edges["scroll"] <= edges["width"], (width, edges)
        assert max(edges["right"], default=0) <= edges["width"], (width, edges)
        assert page.js(GEOMETRY) == [], width


# -- 1. a role that only reads: the irw eval a writer runs -------------------------------------------

@pytest.mark.postgres
def test_a_reader_is_told_to_have_a_writer_run_irw_eval_with_its_own_url_and_each_problem_on_its_line(
        browser, postgres_url, postgres_readonly_url, conformance, tmp_path):
    ingest_dl19(postgres_url, conformance / "dl19-passage")
    password = urlsplit(postgres_readonly_url).password
    with served(postgres_readonly_url, log=tmp_path / "serve.log") as base:
        status, _, body = get(f"{base}/api/qrels/dl19/leaderboard?m=nDCG@10")
        answer = json.loads(body)
        assert status == 409, answer
        # pasted, the command logs in as whoever IRW_DB names: never the reader with *** for a password
        assert answer["command"] == 'irw eval --db "$IRW_DB" --qrels dl19 -m nDCG@10 -m Judged@10'
        assert "***" not in answer["command"]
        how = answer["how_to_run"]
        assert "a role that may write" in how and "IRW_DB" in how and "this server's role may not" in how
        assert password not in body

        status, _, html = get(f"{base}/qrels/dl19?m=nDCG@10")
        assert status == 409 and password not in html
        command = unescape(re.search(r'<pre id="command"><code>(.*?)</code></pre>', html).group(1))
        assert command == answer["command"]
        assert "Then load this page again." in unescape(re.search(r'<p id="how-to-run">(.*?)</p>', html).group(1))

        page = ServedPage(browser, f"{base}/qrels/dl19?m=nDCG@10")
        lines = page.js("Array.from(document.querySelectorAll('#message p')).map(p => p.textContent)")
        # the runs lacking the same measures on one line (the command below stores them), not a line per run
        assert [line.split(" with ")[0] for line in lines] == [
            f"nDCG@10, Judged@10 of runs {RUNS[0]} and {RUNS[1]}: never computed"]
        assert not any("\\n" in line for line in lines)  # no line break written as an escape
        assert_fits(page)
        assert page.errors() == ["Failed to load resource: the server responded with a status of 409 (Conflict)"]

        # a console statement with more rows than served: `irw sql` with the URL from IRW_DB too
        status, _, html = get(f"{base}/sql?q=" + quote("select n from generate_series(1, 10001) as n"))
        assert status == 200 and password not in html
        sql = unescape(re.search(r'<code class="command">(.*?)</code>', html).group(1))
        assert sql.startswith('irw sql --db "$IRW_DB" ') and "***" not in sql
        assert "First set IRW_DB to the warehouse" in html
        # the statements it runs, as PostgreSQL has them (it said PIVOT, which is DuckDB's own)
        assert "as <code>irw sql</code> runs it: SELECT (or EXPLAIN of one), nothing outside" in html

        # the command as shown, run with IRW_DB set to a writer's URL: then the reader's page has the scores
        done = subprocess.run(["bash", "-c", f'irw() {{ "{sys.executable}" -m warehouse "$@"; }}; {command}'],
                              env={**os.environ, "IRW_DB": postgres_url}, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, done.stderr
        rows = get_json(f"{base}/api/qrels/dl19/leaderboard?m=nDCG@10")
        assert round({r["run"]: r for r in rows}["BM25"]["nDCG@10"], 4) == 0.5058


# -- 2. the database server down: 503 ------------------------------------------------------------------

class Relay:
    """A TCP relay from a local port to the PostgreSQL server: the database server as this test can
    take it down (stop) and bring it back (start) on the same address."""

    def __init__(self, upstream: tuple[str, int]):
        self.upstream = upstream
        self.port = 0
        self.listener: socket.socket | None = None
        self.open: list[socket.socket] = []

    def start(self) -> None:
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", self.port))
        self.port = self.listener.getsockname()[1]
        self.listener.listen(64)
        threading.Thread(target=self._accept, args=(self.listener,), daemon=True).start()

    def stop(self) -> None:
        """Refuses new connections and cuts those open, as a stopped server does."""
        try:  # wakes the thread blocked in accept(), which a close alone leaves listening on Linux
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.listener.close()
        for conn in self.open:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()
        self.open.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            self.open += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for conn in (source, sink):
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


@contextmanager
def relayed(url: str) -> Iterator[tuple[Relay, str]]:
    parts = urlsplit(url)
    relay = Relay((parts.hostname, parts.port or 5432))
    relay.start()
    try:
        login, _, _ = parts.netloc.rpartition("@")
        yield relay, urlunsplit(parts._replace(netloc=f"{login}@127.0.0.1:{relay.port}"))
    finally:
        if relay.listener is not None and relay.listener.fileno() != -1:
            relay.stop()


@pytest.mark.postgres
def test_a_database_server_that_cannot_be_reached_is_a_503_on_every_page_and_api(postgres_url, conformance,
                                                                                 tmp_path):
    ingest_dl19(postgres_url, conformance / "dl19-passage")
    password = "pw-never-shown"  # the test server trusts 127.0.0.1: any password logs in
    with relayed(postgres_url_with(postgres_url, user=urlsplit(postgres_url).username or "postgres",
                                   password=password)) as (relay, url):
        with served(url, log=tmp_path / "serve.log") as base:
            assert get(f"{base}/api/qrels")[0] == 200
            relay.stop()
            pages = ["/", "/qrels/dl19", f"/qrels/dl19/runs/{RUNS[0]}", "/qrels/dl19/history", "/sql?q=select+1"]
            apis = ["/api/qrels", "/api/qrels/dl19/leaderboard", f"/api/qrels/dl19/runs/{RUNS[0]}",
                    "/api/sql?q=select+1"]
            for path in pages + apis + ["/sql.csv?q=select+1"]:
                status, _, body = get(base + path)
                assert status == 503, (path, status, body[:400])
                assert password not in body
            for path in apis:
                error = json.loads(get(base + path)[2])["error"]
                assert "could not connect to the warehouse's database server" in error
                assert "load the page again in a moment" in error
            assert "<title>No connection to the database server</title>" in get(f"{base}/qrels/dl19")[2]
            relay.start()  # the server is back: so are the pages
            assert get(f"{base}/qrels/dl19")[0] == 200


# -- 3. a run name of 300 characters in the Baseline list ---------------------------------------------

@pytest.mark.postgres
def test_the_baseline_list_of_a_300_character_run_name_stays_within_a_phone_s_width(browser, postgres_url,
                                                                                    conformance, tmp_path):
    ingest_dl19(postgres_url, conformance / "dl19-passage", long_name=True)
    with served(postgres_url, log=tmp_path / "serve.log") as base:
        page = ServedPage(browser, f"{base}/qrels/dl19?m=nDCG@10")
        assert LONG_NAME in page.js("Array.from(document.querySelectorAll('#baseline option')).map(o => o.value)")
        page.set_width(PHONE, 844)
        page.click("details.choices > summary")
        assert page.js("document.querySelector('details.choices').open") is True
        assert_fits(page, (PHONE, NARROW, 1280))
        assert page.errors() == []
