"""`irw serve` as a user runs it: the real server in a subprocess on a free port, over a real
warehouse built from ../shared/conformance/dl19-passage (the six runs of the folder, all tagged
`rank`, qrels named dl19, plus two runs with hostile names), every page and JSON URL fetched with
urllib. What is checked: the JSON numbers are trec_eval's; the links between pages work when
served; a run ingested by another process is on the next page load; a warehouse another process
is writing gives a 503 page; the SQL console refuses writes and cuts a slow query while other
requests are answered; hostile names are escaped; requests never change the file except to store
missing scores; the same on PostgreSQL (with a role that may only read: the page says which
`irw eval` to run). Then Chromium drives the served pages (tests/test_browser.py's driver).
"""
from __future__ import annotations

import csv
import io
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from html import escape as html_escape
from html.parser import HTMLParser
from pathlib import Path
from typing import Iterator
from urllib.error import HTTPError, URLError
from urllib.parse import quote, urljoin, urlsplit
from urllib.request import Request, urlopen

import pytest

import warehouse
from warehouse.formats.escaping import shown
from docs_pages import section
from conftest import dl19_expected

RUNS = ("BM25", "BM25_RM3", "D_BERT_KD_TASB", "OPEN_AI_ADA2", "REP_LLAMA", "SPLADE_P_P_ENSEMBLE_DISTIL")
HOSTILE = "<script>alert(1)</script>"
BIDI = "run\u202eevil"
IRW = [sys.executable, "-m", "warehouse"]
SLOW_SQL = "select count(*) from range(1000000000000) as a"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, headers: dict | None = None, timeout: float = 120) -> tuple[int, dict, str]:
    """(status, headers, body) of a GET, errors included."""
    try:
        with urlopen(Request(url, headers=headers or {}), timeout=timeout) as response:
            return response.status, dict(response.headers), response.read().decode("utf-8")
    except HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode("utf-8")


def get_json(url: str):
    status, headers, body = get(url)
    assert status == 200, (url, status, body[:500])
    assert headers["content-type"].startswith("application/json")
    return json.loads(body)


@contextmanager
def served(db: str | None, *options: str, log: Path, cwd: Path | None = None,
           port: int | None = None) -> Iterator[str]:
    """`irw serve --db db --port FREE` in a subprocess until the block ends; yields its base URL."""
    port = port or free_port()
    with open(log, "w") as err:
        process = subprocess.Popen([*IRW, "serve", *(["--db", db] if db else []), "--port", str(port), *options],
                                   cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"irw serve did not start: {log.read_text()}")
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


@pytest.mark.parametrize("path, query, back", [
    ("/qrels/dl19", "?m=NOPE&baseline=BM25&page=1", "/qrels/dl19?baseline=BM25"),
    ("/qrels/dl19/runs/BM25", "?m=AP&m=P@x", "/qrels/dl19/runs/BM25"),
    ("/qrels/dl19/history", "?m=nope@10&system=BM25", "/qrels/dl19/history?system=BM25"),
    ("/qrels/dl19/compare", "?run=BM25&run=BM25_RM3&m=Ap(rel=x)", "/qrels/dl19/compare?run=BM25&run=BM25_RM3"),
])
def test_a_measure_mistyped_in_the_address_links_the_page_with_its_default_measures(dl19_server, path, query, back):
    """A 400 for ?m= named `irw measures`, a command, and offered no way on but the index."""
    base = dl19_server["base"]
    status, _, page = get(base + path + query)
    assert status == 400 and 'class="error-message"' in page, page[-800:]
    assert f'<p><a id="back" href="{html_escape(back)}">Show this page with its default measures</a></p>' in page
    status, _, page = get(base + back)
    assert status == 200, page[-800:]
    status, _, data = get(base + "/api" + path + ("/leaderboard" if path == "/qrels/dl19" else "") + query)
    assert status == 400 and "back" not in json.loads(data)  # JSON says the error, with no link to follow


def test_a_measure_s_typo_links_the_page_with_the_measure_meant(dl19_server):
    base = dl19_server["base"]
    status, _, page = get(base + "/qrels/dl19?m=AP&m=nDGC@10&baseline=BM25")
    assert status == 400 and "did you mean nDCG@10?" in page
    back = "/qrels/dl19?m=AP&m=nDCG%4010&baseline=BM25"
    assert f'<p><a id="back" href="{html_escape(back)}">Show this page with nDCG@10</a></p>' in page, page[-600:]
    status, _, page = get(base + back)
    assert status == 200 and "nDCG@10" in page


def test_a_port_in_use_is_said_before_serving_and_names_another(seeded_db):
    """A port another server holds: `irw serve` said "serving DB at http://127.0.0.1:PORT/", which
    showed the other server's pages, then uvicorn's own "ERROR: [Errno 98] ... address already in
    use" and exit status 3 (a walk's second server)."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([*IRW, "serve", "--db", str(seeded_db), "--port", str(port)],
                                capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result
    assert result.stderr == (f"Error: port {port} is in use on 127.0.0.1 (another irw serve, or another server): "
                             f"pass another with --port, e.g. --port {port + 1}\n"), result.stderr
    assert result.stdout == ""


def test_the_port_a_port_in_use_names_instead_is_free(seeded_db):
    """A walk running three servers on 8617-8619 was told, at 8617, `e.g. --port 8618`: the second's."""
    import socket

    from warehouse.errors import ServeError
    from warehouse.serve import listening_socket

    held = []
    try:
        while len(held) < 2:  # two ports side by side, both held
            first = socket.socket()
            first.bind(("127.0.0.1", 0))
            first.listen()
            second = socket.socket()
            try:
                second.bind(("127.0.0.1", first.getsockname()[1] + 1))
                second.listen()
            except OSError:
                first.close()
                second.close()
                continue
            held = [first, second]
        port = held[0].getsockname()[1]
        with pytest.raises(ServeError) as raised:
            listening_socket("127.0.0.1", port)
        named = int(re.search(r"e\.g\. --port (\d+)$", str(raised.value)).group(1))
        assert named not in (port, port + 1)
        listening_socket("127.0.0.1", named).close()  # free, as said
    finally:
        for sock in held:
            sock.close()


def test_a_damaged_warehouse_is_the_server_s_error_not_the_request_s(seeded_db, tmp_path):
    """A walk served a truncated warehouse file: every page said it was damaged, as a 400 (a bad
    request) where the fault is the server's --db (500, as a missing file is)."""
    with warehouse.open(seeded_db) as wh:
        wh.evaluate("tagA", "base", ["AP"])
    with open(seeded_db, "r+b") as handle:
        handle.truncate(int(seeded_db.stat().st_size * 0.2))
    with served(str(seeded_db), log=tmp_path / "serve.log") as base:
        status, _, body = get(f"{base}/")
    assert status == 500 and "is damaged" in body, (status, body[:500])


def irw(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run([*IRW, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=600)
    assert result.returncode == 0, result.stderr
    return result


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.hrefs += [value for name, value in attrs if name == "href" and value is not None]


def links(html: str) -> list[str]:
    parser = Links()
    parser.feed(html)
    return parser.hrefs


def build_dl19(folder: Path, conformance: Path) -> Path:
    """The DL19 warehouse as a user builds it (the folder of six runs), plus two hostile names."""
    dl19 = conformance / "dl19-passage"
    irw("ingest", "qrels", dl19 / "qrels.dl19-passage.txt", "--name", "dl19", cwd=folder)
    irw("ingest", "run", dl19 / "runs", cwd=folder)
    db = folder / "irw.duckdb"
    with warehouse.open(db) as wh:
        wh.ingest_run(dl19 / "runs" / "run.dl19.BM25.txt", HOSTILE, system='"><b>sys</b>',
                      description="<img src=x onerror=alert(2)>")
        wh.ingest_run(dl19 / "runs" / "run.dl19.BM25_RM3.txt", BIDI)
    return db


@pytest.fixture(scope="module")
def dl19_server(conformance, tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve")
    db = build_dl19(folder, conformance)
    with served(str(db), "--timeout", "1", log=folder / "serve.log", cwd=folder) as base:
        yield {"base": base, "db": db, "folder": folder, "conformance": conformance}


def trec(conformance: Path, run: str, name: str, query: str = "all") -> float:
    return float(dl19_expected(conformance, run)[(name, query)])


TREC_NAMES = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10"}


# -- pages and data ------------------------------------------------------------------------------------

def test_the_leaderboard_json_is_trec_eval_s(dl19_server):
    base, conformance = dl19_server["base"], dl19_server["conformance"]
    rows = get_json(f"{base}/api/qrels/dl19/leaderboard?m=nDCG@10&m=AP&m=P@10")
    by_run = {row["run"]: row for row in rows}
    assert set(RUNS) | {HOSTILE, BIDI} == set(by_run)
    assert round(by_run["BM25"]["nDCG@10"], 4) == 0.5058
    for run in RUNS:
        for measure, name in TREC_NAMES.items():
            assert round(by_run[run][measure], 4) == round(trec(conformance, run, name), 4), (run, measure)
    values = [row["nDCG@10"] for row in rows]
    assert values == sorted(values, reverse=True)  # ranked by the first measure
    assert rows[0]["run"] == "REP_LLAMA"
    # the same table `irw report leaderboard --format json` prints
    printed = json.loads(irw("report", "leaderboard", "--qrels", "dl19", "-m", "nDCG@10", "-m", "AP", "-m", "P@10",
                             "--format", "json", cwd=dl19_server["folder"]).stdout)
    assert printed == rows


def test_a_baseline_and_runs_chosen_in_the_url(dl19_server):
    base = dl19_server["base"]
    rows = get_json(f"{base}/api/qrels/dl19/leaderboard?m=nDCG@10&run=BM25*&run=REP_LLAMA&baseline=BM25")
    assert [row["run"] for row in rows] == ["REP_LLAMA", "BM25_RM3", "BM25"]
    bm25 = next(row for row in rows if row["run"] == "BM25")
    assert bm25["delta_nDCG@10"] == 0.0
    llama = next(row for row in rows if row["run"] == "REP_LLAMA")
    assert round(llama["delta_nDCG@10"], 4) == 0.2326  # the README's irw compare
    status, _, html = get(f"{base}/qrels/dl19?m=nDCG@10&baseline=BM25")
    assert status == 200
    assert re.search(r'<option value="BM25" selected>BM25</option>', html)
    assert "Baseline: <strong>BM25</strong>" in html
    # a run page says what it compares with: the board's baseline (its own row links it so), another
    # run, or none when the URL names none (the index links a run so; it once said "This run is the
    # leaderboard's baseline" there)
    for query, says in (("?baseline=BM25", "This run is the leaderboard's baseline."),
                        ("?baseline=REP_LLAMA", "Compared with <strong>REP_LLAMA</strong>."),
                        ("", "No baseline (choose one under &ldquo;Choose the measures, baseline and query&rdquo; "
                             "to compare).")):
        status, _, html = get(f"{base}/qrels/dl19/runs/BM25{query}")
        assert status == 200 and says in html, query


# -- paging, sorting and filtering on the server ---------------------------------------------------------

def get_page(url: str) -> tuple[list[dict], dict]:
    status, headers, body = get(url)
    assert status == 200, (url, status, body[:500])
    return json.loads(body), {k.lower(): v for k, v in headers.items()}


def every_page(base: str, query: str, per_page: int) -> tuple[list[dict], int]:
    """The rows of every page of the leaderboard's JSON, in order, following the Link headers; and
    the total the first page says."""
    rows, headers = get_page(f"{base}/api/qrels/dl19/leaderboard?{query}&per_page={per_page}")
    total, pages = int(headers["x-total-count"]), int(headers["x-pages"])
    assert pages == max(1, -(-total // per_page)) and len(rows) == min(per_page, total)
    for number in range(2, pages + 1):
        nxt = re.search(r'<([^>]*)>; rel="next"', headers["link"]).group(1)
        assert f"page={number}" in nxt
        page_rows, headers = get_page(base + nxt)
        assert int(headers["x-page"]) == number and int(headers["x-total-count"]) == total
        assert len(page_rows) == (per_page if number < pages else total - per_page * (pages - 1))
        rows += page_rows
    assert 'rel="next"' not in headers["link"] and 'rel="last"' in headers["link"]
    return rows, total


SORTS = {"rank": ("rank", False), "run": ("run", False), "system": ("system", False), "AP": ("AP", True),
         "nDCG@10": ("nDCG@10", True), "Judged@10": ("Judged@10", True), "queries": ("queries", True),
         "date": ("run_date", True)}


# a name sorts with its ASCII letters case folded: a walk's bm25_march sorted after every capital
ASCII_FOLDED = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def expected_order(rows: list[dict], key: str, descending: bool) -> list[str]:
    """The runs sorted as the server promises: by the column (missing values last either way; a
    name with its ASCII letters case folded; a measure at 12 decimals), ties by the board's rank
    (unranked last), then by run name (code point order, as bytes)."""
    def tie_order(r):
        return (r["rank"] is None, r["rank"] or 0, r["run"])

    present = sorted((r for r in rows if r[key] is not None), key=tie_order)
    absent = sorted((r for r in rows if r[key] is None), key=tie_order)
    present.sort(key=lambda r: r[key].translate(ASCII_FOLDED) if key in ("run", "system")
                 else round(r[key], 12) if isinstance(r[key], float) else r[key], reverse=descending)
    return [r["run"] for r in present] + [r["run"] for r in absent]



def test_runs_equal_on_the_sorted_measure_keep_the_board_s_rank_order(dl19_server):
    """A report walk: sorted by P@10, D_BERT_KD_TASB (rank 4) came before SPLADE (rank 2), their P@10
    of 348/430 differing only in the last bits of a sum, where the reports' pages keep rank order."""
    for order in ("desc", "asc"):
        rows = get_json(f"{dl19_server['base']}/api/qrels/dl19/leaderboard?m=AP&m=P@10&sort=P@10&order={order}")
        tied = {}
        for row in rows:
            tied.setdefault(round(row["P@10"], 12), []).append(row["rank"])
        assert any(len(ranks) > 1 for ranks in tied.values())  # DL19 has such ties: the case in hand
        assert all(ranks == sorted(ranks) for ranks in tied.values()), (order, tied)

def test_pages_sorted_by_any_column_never_overlap_or_skip_and_keep_ranks_and_marks(dl19_server):
    base = dl19_server["base"]
    whole, total = every_page(base, "m=AP&m=nDCG@10", 500)
    assert total == 8 and len(whole) == 8
    by_run = {row["run"]: row for row in whole}
    # HOSTILE is BM25's file under another name: a tie on every measure, broken by name
    assert by_run[HOSTILE]["AP"] == by_run["BM25"]["AP"] and by_run[HOSTILE]["rank"] == by_run["BM25"]["rank"]
    for sort, (key, natural) in SORTS.items():
        for order in ("asc", "desc"):
            want = expected_order(whole, key, order == "desc")
            for per_page in (1, 3):
                rows, total = every_page(base, f"m=AP&m=nDCG@10&sort={quote(sort)}&order={order}", per_page)
                assert total == 8 and [r["run"] for r in rows] == want, (sort, order, per_page)
                for row in rows:  # rank over the whole board, marks corrected over the whole family
                    assert row == by_run[row["run"]], (sort, order, per_page, row["run"])
        # no order given: the column's natural one
        rows, _ = every_page(base, f"m=AP&m=nDCG@10&sort={quote(sort)}", 8)
        assert [r["run"] for r in rows] == expected_order(whole, key, natural)
    ranks = [r["rank"] for r in every_page(base, "m=AP&m=nDCG@10&sort=AP&order=asc", 3)[0]]
    assert ranks == sorted(ranks, reverse=True)  # page 2 goes on where page 1 ended


def test_a_measure_column_sorts_by_any_name_the_measure_takes(dl19_server):
    """?sort= takes a measure as ?m= does: `sort=P.10` or `sort=ndcg_cut_10` is the column P@10 or
    nDCG@10 (it was "not a column of this list" unless spelt as the column's header), and the
    page's links name the column as the header does."""
    base = dl19_server["base"]
    shown = "m=AP&m=nDCG@10&m=" + quote("P@10")
    for canonical, spellings in (("P@10", ("P.10", "P_10")), ("nDCG@10", ("ndcg_cut_10", "ndcg_cut.10")),
                                 ("AP", ("map",))):
        want, _ = every_page(base, f"{shown}&sort={quote(canonical)}&order=asc", 3)
        for spelling in spellings:
            rows, _ = every_page(base, f"{shown}&sort={quote(spelling)}&order=asc", 3)
            assert rows == want, spelling
        status, _, html = get(f"{base}/qrels/dl19?{shown}&sort={quote(spellings[0])}&per_page=3")
        assert status == 200 and f"sort={quote(canonical)}&amp;per_page=3&amp;page=2" in html, spellings[0]
    # a measure the page does not show is still no column of it
    status, _, body = get(f"{base}/api/qrels/dl19/leaderboard?{shown}&sort=recip_rank")
    assert status == 400 and "'recip_rank' is not a column of this list" in json.loads(body)["error"]


def test_a_filter_keeps_the_runs_whose_name_or_system_holds_it_and_says_when_none_does(dl19_server):
    base = dl19_server["base"]
    whole = {r["run"]: r for r in every_page(base, "m=AP", 500)[0]}
    rows, total = every_page(base, "m=AP&filter=bm25", 1)
    assert total == 2 and [r["run"] for r in rows] == ["BM25_RM3", "BM25"]  # by AP
    assert all(row == whole[row["run"]] for row in rows)  # ranks among every run, not the two
    rows, total = every_page(base, "m=AP&filter=" + quote("<b>SYS"), 5)  # a system's name, case folded
    assert [r["run"] for r in rows] == [HOSTILE] and total == 1
    status, _, body = get(f"{base}/api/qrels/dl19/leaderboard?filter=nothing-holds-this")
    assert status == 404 and "no run of the 8 runs on dl19 holds 'nothing-holds-this'" in json.loads(body)["error"]
    status, _, html = get(f"{base}/qrels/dl19?filter=nothing-holds-this&sort=AP")
    assert status == 404 and "<table" not in html and "holds &#39;nothing-holds-this&#39;" in html
    back = re.search(r'<a id="back" href="([^"]*)"', html).group(1)
    assert back == "/qrels/dl19?sort=AP"
    status, _, html = get(f"{base}/qrels/dl19?filter=BM25&per_page=1&page=2")
    assert status == 200 and "2 runs of 8" in html and "page 2 of 2" in html
    assert column_of(html) == ["BM25"]
    status, _, body = get(f"{base}/api/qrels/dl19/leaderboard?page=3&per_page=4")
    assert status == 404 and "page 3 is past the last: 8 runs make 2 pages of 4" in json.loads(body)["error"]


def column_of(html: str) -> list[str]:
    """The run names of a served leaderboard page's table, in order."""
    return [shown_name for shown_name in re.findall(r'<td class="run(?: whole)?" data-value="([^"]*)"', html)]


@pytest.mark.parametrize("query, says", [
    ("page=0", "?page='0' is not allowed: give a whole number from 1"),
    ("page=-1", "?page='-1' is not allowed"),
    ("page=two", "?page='two' is not allowed"),
    ("page=1&page=2", "?page= is given 2 times"),
    ("per_page=0", "?per_page='0' is not allowed: give a whole number from 1 to 500"),
    ("per_page=1000000000", "?per_page='1000000000' is not allowed: give a whole number from 1 to 500"),
    ("sort=unknown", "sort by one of: rank, run, system, AP, nDCG@10, P@10, Judged@10, queries, date"),
    ("sort=" + quote("AP desc; drop table runs"), "is not a column of this list"),
    ("order=up", "?order='up' is not allowed: give asc or desc"),
    ("filter=" + "x" * 201, "?filter= is 201 characters long; give at most 200"),
])
def test_bad_paging_parameters_are_a_400_that_says_what_is_allowed(dl19_server, query, says):
    base = dl19_server["base"]
    status, _, body = get(f"{base}/api/qrels/dl19/leaderboard?{query}")
    assert status == 400 and says in json.loads(body)["error"]
    status, headers, html = get(f"{base}/qrels/dl19?{query}")
    assert status == 400 and headers["content-type"].startswith("text/html")
    assert says.replace("'", "&#39;") in html and "Traceback" not in html


def test_the_served_page_links_sorts_and_pages_on_the_server(dl19_server):
    base = dl19_server["base"]
    status, _, html = get(f"{base}/qrels/dl19?m=AP&m=nDCG@10&sort=nDCG@10&per_page=3&page=2")
    assert status == 200 and "page 2 of 3" in html and "8 runs; 4&ndash;6 shown" in html
    hrefs = links(html)
    assert "/qrels/dl19?m=AP&m=nDCG%4010&sort=nDCG%4010&per_page=3&page=3" in hrefs  # next
    assert "/qrels/dl19?m=AP&m=nDCG%4010&sort=nDCG%4010&per_page=3" in hrefs  # first, previous
    # the active column's header reverses the order; another column's takes its natural order
    assert "/qrels/dl19?m=AP&m=nDCG%4010&sort=nDCG%4010&order=asc&per_page=3" in hrefs
    assert "/qrels/dl19?m=AP&m=nDCG%4010&sort=run&order=asc&per_page=3" in hrefs
    assert 'aria-sort="descending"' in html and 'class="sortable' not in html  # no sorting within a page
    whole = [r["run"] for r in every_page(base, "m=AP&m=nDCG@10&sort=nDCG@10", 500)[0]]
    assert column_of(html) == [shown(name) for name in whole[3:6]]


def test_run_page_json_is_trec_eval_s_per_query(dl19_server):
    base, conformance = dl19_server["base"], dl19_server["conformance"]
    rows = get_json(f"{base}/api/qrels/dl19/runs/BM25?m=nDCG@10&m=AP")
    assert len(rows) == 43
    for row in rows:
        assert round(row["nDCG@10"], 4) == round(trec(conformance, "BM25", "ndcg_cut_10", row["query"]), 4)
        assert round(row["AP"], 4) == round(trec(conformance, "BM25", "map", row["query"]), 4)


def test_compare_and_history_json(dl19_server):
    base = dl19_server["base"]
    rows = get_json(f"{base}/api/qrels/dl19/compare?run=REP_LLAMA&run=SPLADE_P_P_ENSEMBLE_DISTIL&m=nDCG@10"
                    "&baseline=BM25")
    assert {(r["run"], r["baseline"]) for r in rows} == {("REP_LLAMA", "BM25"), ("SPLADE_P_P_ENSEMBLE_DISTIL", "BM25")}
    llama = next(r for r in rows if r["run"] == "REP_LLAMA")
    assert (llama["wins"], llama["ties"], llama["losses"]) == (35, 0, 8)  # the README's irw compare
    history = get_json(f"{base}/api/qrels/dl19/history?m=nDCG@10&system=BM25")
    assert [r["run"] for r in history] == ["BM25"] and round(history[0]["nDCG@10"], 4) == 0.5058
    index = get_json(f"{base}/api/qrels")
    (dl19,) = index["qrels"]
    assert dl19["qrels"] == "dl19" and dl19["queries"] == 43
    assert {r["run"] for r in dl19["runs"]} == set(RUNS) | {HOSTILE, BIDI}
    assert all(r["system"] and r["date"] for r in dl19["runs"])


def test_every_page_answers_and_every_link_between_them_works(dl19_server):
    """From the index, every link on every page of this server is followed (two levels deep):
    each answers 200, so the links are this server's routes, not the static reports' files."""
    base = dl19_server["base"]
    seen: dict[str, int] = {}
    frontier = [f"{base}/"]
    for _depth in range(3):
        following = []
        for url in frontier:
            if url in seen:
                continue
            status, headers, body = get(url)
            seen[url] = status
            assert status == 200, (url, body[:800])
            if headers["content-type"].startswith("text/html"):
                for href in links(body):
                    target = urljoin(url, href)
                    if urlsplit(target).netloc == urlsplit(base).netloc and "/sql" not in target:
                        following.append(target.split("#")[0])
        frontier = following
    paths = {urlsplit(url).path for url in seen}
    assert {"/", "/qrels/dl19", "/qrels/dl19/history", "/api/qrels", "/api/qrels/dl19/leaderboard"} <= paths
    assert {f"/qrels/dl19/runs/{run}" for run in RUNS} <= paths
    assert f"/qrels/dl19/runs/{quote(HOSTILE, safe='')}" in {urlsplit(u).path for u in seen} or any(
        "%3Cscript%3E" in u for u in seen)
    # the compare form of the index, as the browser sends it
    status, _, html = get(f"{base}/qrels/dl19/compare?run=BM25&run=REP_LLAMA")
    assert status == 200 and "REP_LLAMA" in html
    for href in links(html):
        target = urljoin(f"{base}/qrels/dl19/compare", href)
        if urlsplit(target).netloc == urlsplit(base).netloc and "/sql" not in target:
            assert get(target)[0] == 200, target


def test_hostile_names_are_escaped_and_encoded(dl19_server):
    base = dl19_server["base"]
    pages = [get(f"{base}/")[2], get(f"{base}/qrels/dl19")[2],
             get(f"{base}/qrels/dl19/runs/{quote(HOSTILE, safe='')}")[2],
             get(f"{base}/qrels/dl19/compare?run={quote(HOSTILE)}&run={quote(BIDI)}&m=AP")[2],
             get(f"{base}/qrels/dl19/history")[2],
             get(f"{base}/sql?q=" + quote("select name, description from runs order by name"))[2]]
    for html in pages:
        assert "<script>alert" not in html and "<img" not in html and "<b>sys" not in html
        assert html.count("<script>") == 1  # the sorting script, and nothing else
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "\u202e" not in html  # the escaping rule of the static reports: shown as a visible escape
        for href in links(html):  # names reach URLs percent-encoded, never raw
            assert "\u202e" not in href and "<" not in href and '"' not in href
    assert "%E2%80%AE" in pages[1]  # the bidi run's link
    assert get(f"{base}/qrels/dl19/runs/{quote(BIDI, safe='')}")[0] == 200
    rows = get_json(f"{base}/api/qrels/dl19/leaderboard?m=AP")
    assert {HOSTILE, BIDI} <= {row["run"] for row in rows}  # JSON carries the names exactly
    status, _, html = get(f"{base}/qrels/{quote(HOSTILE, safe='')}")
    assert status == 404 and "<script>alert" not in html and "&lt;script&gt;" in html


def test_no_path_reaches_the_file_system(dl19_server):
    base = dl19_server["base"]
    for path in ("/qrels/dl19/runs/../../../../etc/passwd", "/qrels/dl19/runs/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
                 "/api/qrels/dl19/runs/..%2F..%2Firw.duckdb", "/qrels/..%2F..%2Fetc%2Fpasswd"):
        status, _, body = get(base + path)
        assert status == 404 and "root:" not in body, path
    assert get(f"{base}/static/../irw.duckdb")[0] == 404


def test_it_listens_on_loopback_only_and_refuses_other_host_names(dl19_server):
    base = dl19_server["base"]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:  # this machine's outward address
        probe.connect(("10.255.255.255", 1))
        address = probe.getsockname()[0]
    if not address.startswith("127."):
        with pytest.raises(OSError):
            socket.create_connection((address, urlsplit(base).port), timeout=2).close()
    assert get(f"{base}/", headers={"Host": "attacker.example"})[0] == 400
    assert get(f"{base}/", headers={"Host": f"localhost:{urlsplit(base).port}"})[0] == 200


def test_loading_pages_writes_nothing_once_scores_are_stored(dl19_server):
    base, db = dl19_server["base"], dl19_server["db"]
    urls = [f"{base}/", f"{base}/qrels/dl19?m=AP&m=nDCG@10", f"{base}/qrels/dl19/runs/BM25?m=AP",
            f"{base}/qrels/dl19/compare?run=BM25&run=REP_LLAMA&m=AP", f"{base}/qrels/dl19/history?m=AP",
            f"{base}/sql?q=select+1"]
    for url in urls:  # the first time computes and stores what is missing
        assert get(url)[0] == 200, url
    before = (db.stat().st_mtime_ns, db.stat().st_size, db.read_bytes())
    for url in urls:
        assert get(url)[0] == 200, url
    assert (db.stat().st_mtime_ns, db.stat().st_size, db.read_bytes()) == before
    assert not Path(str(db) + ".wal").exists()


# -- live ------------------------------------------------------------------------------------------------

def test_a_run_ingested_by_another_process_is_on_the_next_page_load(dl19_server):
    base, folder, conformance = dl19_server["base"], dl19_server["folder"], dl19_server["conformance"]
    assert "LATE_RUN" not in {row["run"] for row in get_json(f"{base}/api/qrels/dl19/leaderboard?m=nDCG@10")}
    irw("ingest", "run", conformance / "dl19-passage" / "runs" / "run.dl19.REP_LLAMA.txt", "--name", "LATE_RUN",
        cwd=folder)
    rows = get_json(f"{base}/api/qrels/dl19/leaderboard?m=nDCG@10")
    late = next(row for row in rows if row["run"] == "LATE_RUN")
    assert round(late["nDCG@10"], 4) == round(trec(conformance, "REP_LLAMA", "ndcg_cut_10"), 4)
    # the page computed its scores once and stored them: `irw sql` reads them
    stored = irw("sql", "select count(*) from score_values where run = 'LATE_RUN' and measure = 'nDCG@10'",
                 "--format", "csv", cwd=folder).stdout
    assert stored.splitlines() == ["count_star()", "43"]
    html = get(f"{base}/")[2]
    assert "LATE_RUN" in html
    irw("rm", "run", "LATE_RUN", cwd=folder)
    assert "LATE_RUN" not in get(f"{base}/")[2]


def test_requests_needing_the_same_missing_scores_at_once_compute_them_once(dl19_server):
    """Four requests at once for a measure no evaluation stored: each answers the same numbers,
    and the scores are stored once (one `evaluated` row per run and measure)."""
    base, folder = dl19_server["base"], dl19_server["folder"]
    url = f"{base}/api/qrels/dl19/leaderboard?m=RR&m=Rprec"
    answers: list = [None] * 4

    def fetch(i: int) -> None:
        answers[i] = get(url)

    threads = [threading.Thread(target=fetch, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert [a[0] for a in answers] == [200] * 4, [a[2][:300] for a in answers]
    assert len({a[2] for a in answers}) == 1
    rows = json.loads(answers[0][2])
    assert round({r["run"]: r for r in rows}["BM25"]["RR"], 4) == 0.8245  # the README's walkthrough
    counts = irw("sql", "select measure, count(*) as n, count(distinct run) as runs from score_values "
                 "where measure in ('RR', 'Rprec') and query = (select min(query) from score_values) "
                 "group by measure order by measure", "--format", "csv", cwd=folder).stdout
    assert counts.splitlines() == ["measure,n,runs", "RR,8,8", "Rprec,8,8"]


def test_serve_says_so_when_there_is_no_warehouse(tmp_path):
    result = subprocess.run([*IRW, "serve", "--db", str(tmp_path / "none.duckdb"), "--port", str(free_port())],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and result.stderr.startswith("Error: no warehouse at")
    assert not (tmp_path / "none.duckdb").exists()


def test_a_warehouse_another_process_writes_is_a_503_page(dl19_server):
    base, db = dl19_server["base"], dl19_server["db"]
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
                               "print('held', flush=True); time.sleep(60)", str(db)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        start = time.monotonic()
        status, headers, html = get(f"{base}/qrels/dl19")
        assert status == 503 and "busy" in html and "content-security-policy" in headers
        assert time.monotonic() - start >= 2.5  # tried again for a while first
        status, _, body = get(f"{base}/api/qrels")
        assert status == 503 and "busy" in json.loads(body)["error"]
    finally:
        holder.kill()
        holder.wait()
    assert get(f"{base}/qrels/dl19")[0] == 200


# -- the SQL console ----------------------------------------------------------------------------------

def test_the_sql_console_answers_as_a_table_csv_and_json(dl19_server):
    base = dl19_server["base"]
    q = quote("select name, system from runs where name like 'BM25%' order by name")
    status, _, html = get(f"{base}/sql?q={q}")
    assert status == 200 and '<table class="sortable result" id="result">' in html
    assert "<td>BM25_RM3</td>" in html and "2 rows" in html
    assert "as <code>irw sql</code> runs it: SELECT (or PIVOT, or EXPLAIN of one), nothing outside" in html
    status, headers, text = get(f"{base}/sql.csv?q={q}")
    assert status == 200 and headers["content-type"].startswith("text/csv")
    assert list(csv.reader(io.StringIO(text))) == [["name", "system"], ["BM25", "BM25"], ["BM25_RM3", "BM25_RM3"]]
    assert get_json(f"{base}/api/sql?q={q}") == [{"name": "BM25", "system": "BM25"},
                                                 {"name": "BM25_RM3", "system": "BM25_RM3"}]


def test_the_sql_console_refuses_writes_and_files(dl19_server, tmp_path):
    base, folder = dl19_server["base"], dl19_server["folder"]
    outside = tmp_path / "out.csv"
    for statement in ("delete from runs", "drop table runs", "insert into runs select * from runs",
                      f"copy runs to '{outside}'", "select * from read_csv('/etc/passwd')",
                      "attach '/tmp/x.duckdb' as x", "set enable_external_access = true"):
        status, _, body = get(f"{base}/api/sql?q={quote(statement)}")
        assert status in (400, 403), (statement, status, body)
        assert "root:" not in body
    assert not outside.exists()
    assert get_json(f"{base}/api/sql?q=" + quote("select count(*) as runs from runs")) == [{"runs": 8}]
    status, _, html = get(f"{base}/sql?q={quote('delete from runs')}")
    assert status == 403 and "read-only" in html
    del folder


def test_a_slow_query_is_cut_and_other_requests_are_answered_meanwhile(dl19_server):
    base = dl19_server["base"]
    answers: dict[str, tuple] = {}

    def slow():
        start = time.monotonic()
        answers["slow"] = (*get(f"{base}/sql?q={quote(SLOW_SQL)}"), time.monotonic() - start)

    thread = threading.Thread(target=slow)
    thread.start()
    time.sleep(0.3)
    start = time.monotonic()
    status, _, _ = get(f"{base}/api/qrels")
    quick = time.monotonic() - start
    thread.join(60)
    status_slow, _, html, took = answers["slow"]
    assert status == 200
    assert status_slow == 504 and "cut" in html, html[-800:]
    assert took < 30  # cut at --timeout 1 (how long exactly is the machine's business)
    assert quick < took  # answered while the slow one ran
    assert get(f"{base}/api/sql?q=select+1+as+x")[0] == 200  # the connection is usable after the cut


def test_a_console_statement_of_millions_of_rows_sends_its_first_ten_thousand(dl19_server):
    """A statement of 5M rows ran within the timeout, then took 76 s and 454 MB to send while
    every other request waited. The console sends the first SQL_MAX_ROWS rows and says so: the page
    in words (with the `irw sql` command that prints them all), the API and CSV in headers."""
    from warehouse.serve.access import SQL_MAX_ROWS

    base = dl19_server["base"]
    big = quote("select range as i, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' as s from range(5000000)")
    start = time.monotonic()
    rows, headers = get_page(f"{base}/api/sql?q={big}")
    assert time.monotonic() - start < 20
    assert len(rows) == SQL_MAX_ROWS == 10_000 and rows[-1]["i"] == 9_999
    assert headers["x-rows-truncated"] == "true" and headers["x-rows-limit"] == "10000"
    status, page_headers, html = get(f"{base}/sql?q={big}")
    assert status == 200 and "the first 10,000 rows (the statement has more" in html and "irw sql --db" in html
    small, headers = get_page(f"{base}/api/sql?q=" + quote("select 1 as x"))
    assert small == [{"x": 1}] and headers["x-rows-truncated"] == "false"



def test_a_console_answer_holds_at_most_its_bytes_and_four_run_at_once(dl19_server):
    """A security walk: `select repeat('x', 200000000) from range(3)`, three rows, took the server to
    2.5 GB (the row cap counts no bytes), and 42 slow statements at once held every worker thread,
    the index page taking 8.5 s. An answer holds its rows within SQL_MAX_BYTES (a first row larger
    alone is refused), and a statement past SQL_AT_ONCE running is a 503 at once."""
    from concurrent.futures import ThreadPoolExecutor

    from warehouse.serve.access import SQL_AT_ONCE, SQL_MAX_BYTES

    base = dl19_server["base"]
    # 25 MB of text, past the 20 MB an answer holds (100 MB took longer than the fixture's --timeout 1
    # on a loaded 2-core machine: a 504 instead of the 19 rows)
    wide = quote("select range as i, repeat('x', 1000000) as s from range(25)")
    rows, headers = get_page(f"{base}/api/sql?q={wide}")
    assert len(rows) == SQL_MAX_BYTES // 1_000_008 == 19 and [row["i"] for row in rows] == list(range(19))
    assert headers["x-rows-truncated"] == "true" and headers["x-bytes-limit"] == "20000000"
    status, _headers, html = get(f"{base}/sql?q={wide}")
    assert status == 200 and "the first 19 rows (the statement has more, past the 20 MB an answer holds" in html
    status, _headers, body = get(f"{base}/api/sql?q=" + quote("select repeat('x', 30000000) as s"))
    assert status == 400 and "the query's first row alone holds about 30 MB, more than the 20 MB a console " \
                             "answer holds; narrow it, or run it with `irw sql --db" in body, body[:300]

    slow = f"{base}/api/sql?q=" + quote("select count(*) from range(1000000000000)")  # cut at --timeout 1
    with ThreadPoolExecutor(SQL_AT_ONCE + 2) as pool:
        answers = list(pool.map(lambda _: get(slow)[:3:2], range(SQL_AT_ONCE + 2)))
        statuses = sorted(status for status, _body in answers)
    assert statuses.count(504) >= 1 and statuses.count(503) >= 1 and set(statuses) <= {503, 504}, statuses
    busy = next(body for status, body in answers if status == 503)
    assert f"the SQL console runs {SQL_AT_ONCE} statements at a time, and as many are running" in busy
    assert get_page(f"{base}/api/sql?q=" + quote("select 1 as x"))[0] == [{"x": 1}]  # the slots are given back

def test_two_sandboxes_on_one_file_in_one_process_both_answer_and_stay_locked(tmp_path):
    """irw serve's requests each open the sandbox; two at once in one process share DuckDB's
    database instance, whose configuration the first locked (the second used to fail setting it)."""
    from warehouse.errors import ReadOnlyError

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    db = tmp_path / "w.duckdb"
    with warehouse.open(db) as wh:
        wh.ingest_qrels(qrels, "q")
    with warehouse.open(db, sandboxed=True) as first, warehouse.open(db, sandboxed=True) as second:
        assert first.sql("select count(*) from qrels").rows == [(2,)]
        assert second.sql("select count(*) from qrels").rows == [(2,)]
        for wh in (first, second):
            with pytest.raises(ReadOnlyError):
                wh.sql("select * from read_csv('/etc/passwd')")
            assert wh.db.con.execute("select current_setting('enable_external_access')").fetchone()[0] is False
            assert wh.db.con.execute("select current_setting('lock_configuration')").fetchone()[0] is True


# -- PostgreSQL ----------------------------------------------------------------------------------------

@pytest.mark.postgres
def test_on_postgresql_the_same_numbers_live_runs_and_a_safe_console(postgres_url, conformance, tmp_path):
    dl19 = conformance / "dl19-passage"
    with warehouse.open(postgres_url) as wh:
        wh.ingest_qrels(dl19 / "qrels.dl19-passage.txt", "dl19")
        wh.ingest_runs([dl19 / "runs" / f"run.dl19.{run}.txt" for run in RUNS[:3]])
        wh.ingest_run(dl19 / "runs" / "run.dl19.BM25.txt", HOSTILE)
    with served(postgres_url, "--timeout", "1", log=tmp_path / "serve.log") as base:
        rows = get_json(f"{base}/api/qrels/dl19/leaderboard?m=nDCG@10&m=AP")
        by_run = {row["run"]: row for row in rows}
        assert round(by_run["BM25"]["nDCG@10"], 4) == 0.5058
        for run in RUNS[:3]:
            assert round(by_run[run]["AP"], 4) == round(trec(conformance, run, "map"), 4)
        html = get(f"{base}/qrels/dl19")[2]
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert" not in html
        # a second process ingests meanwhile: on the next load
        irw("ingest", "run", dl19 / "runs" / "run.dl19.REP_LLAMA.txt", "--name", "LATE_RUN", "--db", postgres_url)
        late = {row["run"]: row for row in get_json(f"{base}/api/qrels/dl19/leaderboard?m=nDCG@10")}["LATE_RUN"]
        assert round(late["nDCG@10"], 4) == round(trec(conformance, "REP_LLAMA", "ndcg_cut_10"), 4)
        for statement in ("delete from runs", "select 1 from runs; delete from runs", "select pg_sleep(30)"):
            assert get(f"{base}/api/sql?q={quote(statement)}")[0] in (400, 403)
        assert get_json(f"{base}/api/sql?q=" + quote("select count(*) as runs from runs")) == [{"runs": 5}]
        start = time.monotonic()
        status, _, body = get(f"{base}/api/sql?q=" + quote("select count(*) from generate_series(1, 100000000000)"))
        assert status == 504 and "cut" in json.loads(body)["error"] and time.monotonic() - start < 20
        assert "password" not in get(f"{base}/")[2].lower()


def rounded(rows: list[dict]) -> list[dict]:
    return [{k: round(v, 10) if isinstance(v, float) else v for k, v in row.items()} for row in rows]


def build_dl19_postgres(url: str, dl19: Path) -> None:
    """dl19_server's eight runs (the hostile names included) in the PostgreSQL warehouse at url."""
    with warehouse.open(url) as wh:
        wh.ingest_qrels(dl19 / "qrels.dl19-passage.txt", "dl19")
        wh.ingest_runs([dl19 / "runs" / f"run.dl19.{run}.txt" for run in RUNS])
        wh.ingest_run(dl19 / "runs" / "run.dl19.BM25.txt", HOSTILE, system='"><b>sys</b>',
                      description="<img src=x onerror=alert(2)>")
        wh.ingest_run(dl19 / "runs" / "run.dl19.BM25_RM3.txt", BIDI)


@pytest.mark.postgres
def test_on_postgresql_every_page_sorted_and_filtered_is_duckdb_s(dl19_server, postgres_url, conformance, tmp_path):
    build_dl19_postgres(postgres_url, conformance / "dl19-passage")
    with served(postgres_url, log=tmp_path / "serve.log") as base:
        for query in ("m=AP&m=nDCG@10", "m=nDCG@10&sort=run&order=desc", "sort=P@10&order=asc", "sort=system",
                      "sort=date&m=AP", "sort=queries&order=asc", "sort=Judged@10", "filter=bm25&sort=AP&order=asc",
                      "filter=" + quote("<B>"), "m=AP&m=nDCG@10&baseline=BM25&sort=nDCG@10"):
            for per_page in (1, 3):
                on_postgres, total = every_page(base, query, per_page)
                on_duckdb, duck_total = every_page(dl19_server["base"], query, per_page)
                differ = [(a["run"], k, a[k], b.get(k)) for a, b in zip(rounded(on_postgres), rounded(on_duckdb))
                          for k in a if a[k] != b.get(k)]
                assert total == duck_total and len(on_postgres) == len(on_duckdb) and not differ, (query, differ)
        status, _, body = get(f"{base}/api/qrels/dl19/leaderboard?filter=nothing-holds-this")
        assert status == 404 and "holds 'nothing-holds-this'" in json.loads(body)["error"]
        assert get(f"{base}/api/qrels/dl19/leaderboard?sort=unknown")[0] == 400
        status, _, html = get(f"{base}/qrels/dl19?sort=AP&order=asc&per_page=3&page=3")
        assert status == 200 and "page 3 of 3" in html


@pytest.mark.postgres
def test_a_role_that_only_reads_is_told_which_irw_eval_to_run(postgres_url, postgres_readonly_url, conformance,
                                                              tmp_path):
    dl19 = conformance / "dl19-passage"
    with warehouse.open(postgres_url) as wh:
        wh.ingest_qrels(dl19 / "qrels.dl19-passage.txt", "dl19")
        wh.ingest_runs([dl19 / "runs" / f"run.dl19.{run}.txt" for run in RUNS[:2]])
    with served(postgres_readonly_url, log=tmp_path / "serve.log") as base:
        status, _, html = get(f"{base}/qrels/dl19?m=nDCG@10")
        assert status == 409 and "irw eval" in html
        command = re.search(r'<pre id="command"><code>(.*?)</code></pre>', html).group(1)
        assert "--qrels dl19 -m nDCG@10 -m Judged@10" in command
        assert "secret-pass" not in html  # the reader's password is never shown
        status, _, body = get(f"{base}/api/qrels/dl19/leaderboard?m=nDCG@10")
        assert status == 409 and "irw eval" in json.loads(body)["command"]
        # a role that may write runs it: then the reader's page shows the scores
        with warehouse.open(postgres_url) as wh:
            wh.evaluate(None, "dl19", ["nDCG@10", "Judged@10"])
        rows = get_json(f"{base}/api/qrels/dl19/leaderboard?m=nDCG@10")
        assert round({r["run"]: r for r in rows}["BM25"]["nDCG@10"], 4) == 0.5058
        assert get(f"{base}/api/sql?q=" + quote("delete from runs"))[0] in (400, 403)


# -- the README ------------------------------------------------------------------------------------------

def readme_section() -> str:
    return section("Serving the reports: irw serve")  # docs/reports.md


def test_the_readme_s_serve_lines_run_as_printed(conformance, tmp_path):
    """The README's block, after the walkthrough's two ingest commands: `irw serve` prints what the
    README shows (on a free port instead of 8000), the curl prints what it shows, and every URL of
    its table answers."""
    block = readme_section().split("```", 2)[1].splitlines()[1:]
    commands: list[tuple[str, list[str]]] = []
    for line in block:
        if line.startswith("$ "):
            commands.append((line[2:], []))
        elif commands:
            commands[-1][1].append(line)
    (serve_line, serve_out), (curl_line, curl_out) = commands
    assert shlex.split(serve_line) == ["irw", "serve"]
    dl19 = conformance / "dl19-passage"
    irw("ingest", "qrels", dl19 / "qrels.dl19-passage.txt", "--name", "dl19", cwd=tmp_path)
    irw("ingest", "run", dl19 / "runs", cwd=tmp_path)
    port = free_port()
    log = tmp_path / "serve.log"
    with served(None, log=log, cwd=tmp_path, port=port) as base:
        assert log.read_text().splitlines()[0] == serve_out[0].replace(":8000/", f":{port}/")
        words = shlex.split(curl_line)
        assert words[:2] == ["curl", "-s"]
        status, _, body = get(words[2].replace("http://127.0.0.1:8000", base))
        assert status == 200 and body.rstrip("\n") == "\n".join(curl_out).rstrip("\n")
        urls = re.findall(r"`(/[^`]*)`", readme_section().split("| page |", 1)[1].split("\n\n", 1)[0])
        assert len(urls) >= 12
        for url in urls:
            url = url.replace("SELECT...", "select+1")
            status, _, body = get(base + url)
            assert status == 200, (url, body[:600])


# -- in Chromium -----------------------------------------------------------------------------------------

from test_browser import GEOMETRY, WIDTHS, Page, assert_compare_page_reads_well, browser, chromium, column, header_index, type_text  # noqa: E402,F401


class ServedPage(Page):
    """A tab on a served page (test_browser's Page opens files): navigations wait for the load."""

    def __init__(self, browser, url: str):  # noqa: F811 - the fixture's name, as test_browser's Page takes it
        self.browser = browser
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 1000, "deviceScaleFactor": 1,
                                                         "mobile": False})
        self.url = url
        self.call("Page.navigate", {"url": url})
        self.loaded()

    def loaded(self) -> None:
        self.browser.wait_for("Page.loadEventFired", self.session)

    def follow(self, selector: str) -> None:
        """A real click on a link or a submit button, and the page it loads."""
        self.click(selector)
        self.loaded()

    def text(self, selector: str) -> str:
        return self.js(f"document.querySelector({json.dumps(selector)}).textContent.trim()")

    def location(self) -> str:
        return self.js("location.pathname + location.search")


def row_marks(page: Page, table: str) -> list[str]:
    """Each row's significance marks (the arrows' titles), in order."""
    return page.js(f"Array.from(document.querySelectorAll({json.dumps(table + ' tbody tr')}))"
                   ".map(r => Array.from(r.querySelectorAll('sup.sig')).map(s => s.title).join(' | '))")


def visible_runs(page: Page) -> list[str]:
    return page.js("Array.from(document.querySelectorAll('table.leaderboard tbody tr'))"
                   ".filter(r => !r.hidden).map(r => r.cells[1].getAttribute('data-value'))")


def test_a_user_in_chromium_goes_from_the_index_to_a_leaderboard_a_run_a_comparison_and_a_query(
        browser, dl19_server):
    folder = dl19_server["folder"]
    user_journey(browser, dl19_server["base"], dl19_server["conformance"], ("--db", str(dl19_server["db"])),
                 folder)


@pytest.mark.postgres
def test_the_same_in_chromium_on_postgresql(browser, postgres_url, conformance, tmp_path):
    build_dl19_postgres(postgres_url, conformance / "dl19-passage")
    with served(postgres_url, log=tmp_path / "serve.log") as base:
        user_journey(browser, base, conformance, ("--db", postgres_url), tmp_path)


def user_journey(browser, base: str, conformance: Path, db: tuple[str, ...], folder: Path) -> None:
    """Index, leaderboard (sorted, filtered, a baseline chosen), a run page and back, a run ingested
    by another process meanwhile, two runs compared, a query in the console: what a user sees."""
    page = ServedPage(browser, f"{base}/")
    assert page.text("h1").startswith("Warehouse")
    page.follow('section.qrels h2 > a[href="/qrels/dl19"]')
    assert page.location() == "/qrels/dl19"
    table = "table.leaderboard"
    runs = column(page, table, 1)
    # a page shows a name by the reports' escaping rule: the bidi control as a visible escape
    assert set(runs) == set(RUNS) | {HOSTILE, shown(BIDI)} and runs[0] == "REP_LLAMA"  # by AP, the default
    # sort by Run, then by nDCG@10 (high first): each header is a link the server sorts by
    page.follow(f"{table} thead th:nth-child(2) a")
    assert column(page, table, 1) == sorted(runs, key=lambda run: (run.translate(ASCII_FOLDED), run))
    ndcg = header_index(page, table, "nDCG@10")
    page.follow(f"{table} thead th:nth-child({ndcg + 1}) a")
    values = [float(v) for v in column(page, table, ndcg)]
    assert values == sorted(values, reverse=True) and f"{values[-1]:.4f}" == "0.5058"
    whole = {r: (rank, marks) for r, rank, marks in zip(column(page, table, 1), column(page, table, 0),
                                                       row_marks(page, table))}
    # three runs a page, sorted by AP low first: page 2 and 3 go on where page 1 ended
    page.call("Page.navigate", {"url": base + page.location() + "&per_page=3"})
    page.loaded()
    ap = header_index(page, table, "AP")
    page.follow(f"{table} thead th:nth-child({ap + 1}) a")  # AP, high first
    page.follow(f"{table} thead th:nth-child({ap + 1}) a")  # again: low first
    assert page.js(f"document.querySelector('{table} thead th:nth-child({ap + 1})').getAttribute('aria-sort')") \
        == "ascending"
    seen, ranks, values = [], [], []
    for number in (1, 2, 3):
        assert page.text("nav.pager .pages") == f"page {number} of 3"
        names = column(page, table, 1)
        assert len(names) == (3 if number < 3 else 2)
        seen += names
        ranks += [int(r) for r in column(page, table, 0)]
        values += [float(v) for v in column(page, table, ap)]
        for name, rank, marks in zip(names, column(page, table, 0), row_marks(page, table)):
            assert whole[name] == (rank, marks)  # rank and significance marks as on the whole board
        if number < 3:
            page.follow("nav.pager a[rel=next]")
    assert sorted(seen) == sorted(runs) and values == sorted(values) and ranks == sorted(ranks, reverse=True)
    page.follow("nav.pager a[rel=first]")
    assert page.text("nav.pager .pages") == "page 1 of 3" and column(page, table, 1) == seen[:3]
    # filter on the server: two runs of eight, over pages of three
    page.js("document.getElementById('run-filter').focus()")
    type_text(page, "BM25")
    page.follow("form.filter button[type=submit]")
    assert "filter=BM25" in page.location() and "sort=AP" in page.location()
    assert visible_runs(page) == ["BM25", "BM25_RM3"]  # AP low first, as sorted
    assert page.text("#run-filter-count").startswith("2 runs of 8")
    assert page.text("nav.pager .pages") == "page 1 of 1"
    # a baseline chosen on the page
    page.click("details.choices > summary")
    page.js("document.getElementById('baseline').value = 'BM25'")
    page.follow("#choices button[type=submit]")
    assert "baseline=BM25" in page.location()
    assert page.text(".baseline-note").startswith("Baseline: BM25.")
    # open a run: its page, tested against that baseline
    page.follow(f'{table} td.run a[href^="/qrels/dl19/runs/REP_LLAMA?"]')
    assert page.location().startswith("/qrels/dl19/runs/REP_LLAMA?")
    assert "REP_LLAMA" in page.text("h1")
    assert page.js("document.querySelectorAll('table.per-query tbody tr').length") == 43
    assert "BM25" in page.text("main")
    page.follow('nav a[href$="baseline=BM25"]')  # back to the leaderboard it came from
    assert page.location().startswith("/qrels/dl19?") and "baseline=BM25" in page.location()
    # a second process ingests a run meanwhile: it is on the next load
    irw("ingest", "run", conformance / "dl19-passage" / "runs" / "run.dl19.OPEN_AI_ADA2.txt", "--name", "LATE_ADA",
        *db, cwd=folder)
    try:
        page.call("Page.reload")
        page.loaded()
        assert "LATE_ADA" in column(page, table, 1)
    finally:
        irw("rm", "run", "LATE_ADA", *db, cwd=folder)
    # compare two runs ticked on the index
    page.follow('nav a[href="/"]')
    page.click('input[type=checkbox][value="BM25"]')
    page.click('input[type=checkbox][value="REP_LLAMA"]')
    page.follow("form.compare button[type=submit]")
    assert page.location() == "/qrels/dl19/compare?run=BM25&run=REP_LLAMA"
    main = page.text("main")
    assert "REP_LLAMA" in main and "BM25" in main and "35" in main  # REP_LLAMA wins 35 queries on nDCG@10
    # a query in the console
    page.follow('nav a[href="/sql"]')
    page.js("document.getElementById('q').focus()")
    type_text(page, "select name, system from runs order by name")
    page.follow("form.sql button[type=submit]")
    names = column(page, "table.result", 0, attribute=None)
    assert names[0] == HOSTILE and len(names) == 8  # shown as text, never as markup
    assert page.text("#result-count").startswith("8 rows")
    assert page.js("document.querySelectorAll('script').length") == 1
    assert page.errors() == []  # nothing refused by the Content-Security-Policy, no script error
    requests = {urlsplit(url).netloc for url in page.requests()}
    assert requests == {urlsplit(base).netloc}  # nothing fetched from anywhere else


# -- pages that read well at 1,280 and 390 px -------------------------------------------------------------

PAGE_GEOMETRY = """(() => {
  const out = {clipped: [], small: [], score: null};
  document.querySelectorAll("th, td").forEach(c => {
    if (c.offsetParent !== null && c.scrollWidth > c.clientWidth + 1)
      out.clipped.push(`${c.textContent.trim().slice(0, 30)}: ${c.scrollWidth} > ${c.clientWidth}`);
  });
  document.querySelectorAll("svg.chart").forEach(svg => {
    if (!svg.getClientRects().length) return;  // the drawing CSS hides at this width (history's twin)
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    svg.querySelectorAll("text").forEach(t => {
      const px = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (px < 10) out.small.push(`${t.textContent.trim().slice(0, 20)}: ${px.toFixed(1)} px`);
    });
  });
  const w = document.documentElement.clientWidth, h = window.innerHeight;
  for (const td of document.querySelectorAll("table tbody td.num")) {
    const r = td.getBoundingClientRect();
    if (/^-?\\d\\.\\d{4}/.test(td.textContent.trim()) && r.top >= 0 && r.bottom <= h && r.left >= 0 && r.right <= w) {
      out.score = td.textContent.trim();
      break;
    }
  }
  return out;
})()"""
LONGEST = "SPLADE_P_P_ENSEMBLE_DISTIL"  # the longest of the real DL19 run names


@pytest.mark.parametrize("path, first_screen_score", [
    ("/qrels/dl19?m=AP&m=nDCG@10&m=P@10&m=RR&baseline=BM25", True),
    (f"/qrels/dl19/compare?run={LONGEST}&run=D_BERT_KD_TASB&run=BM25&baseline=BM25&m=AP&m=nDCG@10", True),
    (f"/qrels/dl19/runs/{LONGEST}?baseline=BM25&m=AP&m=nDCG@10&m=P@10&m=RR", False),
    ("/qrels/dl19/history?m=nDCG@10", False),
])
def test_served_pages_read_well_on_a_desktop_and_a_phone(browser, dl19_server, path, first_screen_score):
    """At 1,280 and 390 px (a phone's 844 px high): every header on screen or in a box that scrolls
    (test_browser's GEOMETRY), no cell's text cut, chart text at least 10 px, and on a leaderboard or
    compare page a score on the first screen."""
    page = ServedPage(browser, dl19_server["base"] + path)
    assert LONGEST in page.text("main")
    for width, height in ((1280, 1000), (390, 844)):
        page.set_width(width, height)
        page.js("window.scrollTo(0, 0)")
        found = page.js(PAGE_GEOMETRY)  # before GEOMETRY, which opens every <details>
        assert page.js(GEOMETRY) == [], (path, width)
        page.js("document.querySelectorAll('details.choices').forEach(d => { d.open = false; })")
        assert found["clipped"] == [], (path, width)
        assert found["small"] == [], (path, width)
        if first_screen_score:
            assert found["score"] is not None, (path, width)
    assert page.errors() == []


def test_the_index_on_a_phone_gives_the_names_the_room_not_the_tick_box(browser, dl19_server):
    """A lab walk: at 390 px the index's Compare column (a checkbox under a 7-letter header) took a
    quarter of the table, so Queries and Date were scrolled out of sight."""
    page = ServedPage(browser, dl19_server["base"] + "/")
    for width, height in ((1280, 1000), (390, 844)):
        page.set_width(width, height)
        widths = page.js("Array.from(document.querySelector('table.runs thead tr').cells)"
                         ".map(c => c.getBoundingClientRect().width)")
        assert widths[0] <= 0.1 * sum(widths), (width, widths)
        assert page.js(GEOMETRY) == [], width
    assert page.errors() == []


def test_numeric_query_ids_are_in_numeric_order_and_sort_so(browser, dl19_server):
    page = ServedPage(browser, dl19_server["base"] + "/qrels/dl19/runs/BM25")
    table = "table.per-query"
    queries = column(page, table, 0, attribute=None)
    assert len(queries) == 43 and queries == sorted(queries, key=int)  # 19335 ... 104861 ... 1133167
    assert queries != sorted(queries)  # text order would differ (1037798 before 104861)
    page.click(f"{table} thead th:nth-child(1) button")
    assert column(page, table, 0, attribute=None) == sorted(queries, key=int)
    page.click(f"{table} thead th:nth-child(1) button")
    assert column(page, table, 0, attribute=None) == sorted(queries, key=int, reverse=True)
    rows = get_json(dl19_server["base"] + "/api/qrels/dl19/runs/BM25")
    assert [row["query"] for row in rows] == sorted(queries, key=int)


def test_served_compare_page_reads_well_on_a_desktop_and_a_phone(browser, dl19_server):
    """The served compare page, as test_browser asserts the static one: the paired tests' columns on
    screen at 1,280 px with SPLADE_P_P_ENSEMBLE_DISTIL on one line, names never broken mid-word, a
    score on a phone's first screen."""
    page = ServedPage(browser, dl19_server["base"] + f"/qrels/dl19/compare?run={LONGEST}&run=D_BERT_KD_TASB"
                      "&run=BM25&baseline=BM25&m=AP&m=nDCG@10")
    assert_compare_page_reads_well(page, LONGEST)
    assert page.errors() == []


# -- stored summaries (schema 16) ---------------------------------------------------------------------------

def test_a_warehouse_of_schema_12_is_upgraded_and_a_page_stores_each_summary_once(conformance, tmp_path):
    """score_summaries (schema 16): an older warehouse gets the table on its first writing open; the
    first page stores the summaries it reads, the same values leaderboard() computes from the
    scores; a later page reads them and writes nothing; scores computed again are summed again; a
    removed run takes its summaries with it."""
    from warehouse import reports
    from warehouse.reports import PageChoice

    dl19 = conformance / "dl19-passage"
    db = tmp_path / "old.duckdb"
    with warehouse.open(db) as wh:
        wh.ingest_qrels(dl19 / "qrels.dl19-passage.txt", "dl19")
        wh.ingest_runs([dl19 / "runs" / f"run.dl19.{run}.txt" for run in RUNS[:3]])
        wh.evaluate(None, "dl19", ["AP", "nDCG@10", "P@10", "Judged@10"])
        wh.db.execute("drop table score_summaries")  # back to schema 12, as written before this one
        wh.db.execute("delete from irw_schema where version >= 13")
    with warehouse.open(db) as wh:
        assert 16 in {v for (v,) in wh.db.fetchall("select version from irw_schema")}
        assert wh.db.fetchone("select count(*) from score_summaries")[0] == 0
        page = reports.leaderboard_page(wh, "dl19", choice=PageChoice(per_page=2))
        stored = wh.db.fetchone("select count(*) from score_summaries")[0]
        assert stored >= 3 * 4  # three runs x AP, nDCG@10, P@10, Judged@10 (and AP's tie range)
        full = reports.leaderboard(wh, "dl19")
        assert [(r.rank, r.run, [c.value for c in r.cells]) for r in page.board.rows] == \
            [(r.rank, r.run, [c.value for c in r.cells]) for r in full.rows[:2]]
        reports.leaderboard_page(wh, "dl19", choice=PageChoice(page=2, per_page=2))
        assert wh.db.fetchone("select count(*) from score_summaries")[0] == stored  # read, not added
        wh.evaluate(["BM25"], "dl19", ["AP"], recompute=True)  # new scores: a new summary
        reports.leaderboard_page(wh, "dl19")
        assert wh.db.fetchone("select count(*) from score_summaries")[0] == stored + 1
        wh.remove_run("BM25")
        assert wh.db.fetchone("select count(*) from score_summaries s join runs r on r.run_id = s.run_id "
                              "where r.name = 'BM25'")[0] == 0
        left = wh.db.fetchone("select count(*) from score_summaries")[0]
        assert left < stored and left == wh.db.fetchone(
            "select count(*) from score_summaries where run_id in (select run_id from runs)")[0]


def test_a_qrels_set_no_run_answers_is_listed_without_links_to_pages_it_has_not(browser, tmp_path, conformance):
    """A warehouse of several collections where one qrels set's runs are not ingested yet: the index
    listed it with links to its leaderboard and history, each a 404 page; it now lists it unlinked,
    saying why, and every link of the index answers. In Chromium, at 1,280 and 390 px, each set's
    name stands apart from its counts (they were as bold as the name, which without a link ran into
    them: "news 57 queries, 15,655 judgments")."""
    multi = conformance / "multi-collection"
    db = tmp_path / "two.duckdb"
    with warehouse.open(db) as wh:
        wh.ingest_qrels(multi / "qrels" / "qrels.dl21-passage.txt", "dl21")
        wh.ingest_qrels(multi / "qrels" / "qrels.beir-v1.0.0-trec-news.test.txt", "news")
        wh.ingest_runs([multi / "runs" / "BM25" / "trec_results_dl21.txt"], name="BM25.dl21")
    with served(str(db), log=tmp_path / "serve.log") as base:
        status, _, html = get(f"{base}/")
        assert status == 200
        assert "<h2>news <span" in html and "No stored run answers a query of news: its leaderboard" in html
        hrefs = {href for href in links(html) if href.startswith("/")}
        assert "/qrels/dl21" in hrefs and not any(href.startswith("/qrels/news") for href in hrefs)
        for href in hrefs:
            assert get(base + href)[0] == 200, href
        page = ServedPage(browser, f"{base}/")
        for width, height in ((1280, 1000), (390, 844)):
            page.set_width(width, height)
            assert page.js(GEOMETRY) == [], width
            headings = page.js("""Array.from(document.querySelectorAll('h2')).map(h => {
              const sub = h.querySelector('.sub'), style = e => getComputedStyle(e);
              return [h.firstChild.textContent.trim(), style(h).fontWeight, style(sub).fontWeight, style(sub).color];
            })""")
            assert [name for name, *_ in headings] == ["dl21", "news"], width
            for name, weight, sub_weight, sub_color in headings:
                assert int(sub_weight) < int(weight) and sub_color != page.js("getComputedStyle(document.body).color"), \
                    (width, name)
        assert page.errors() == []


def test_fifty_five_runs_make_two_pages_of_fifty_and_the_index_lists_fifty(tmp_path):
    """Past one page: the default 50 rows, a last page of 5, the index's first 50 runs by name and a
    note sending to the leaderboard (which pages) for the rest."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"{q} 0 d{q}-{i} {i % 3}\n" for q in range(1, 4) for i in range(6)))
    db = tmp_path / "many.duckdb"
    with warehouse.open(db) as wh:
        wh.ingest_qrels(qrels, "q")
        for s in range(55):
            run = tmp_path / f"r{s}.txt"
            run.write_text("".join(f"{q} Q0 d{q}-{(i + s * q) % 6} {i + 1} {10 - i} r{s}\n"
                                   for q in range(1, 4) for i in range(6)))
            wh.ingest_run(run, f"run_{s:02d}", system=f"sys_{s % 4}")
        wh.evaluate(None, "q", ["AP", "nDCG@10", "P@10", "Judged@10"])
    with served(str(db), log=tmp_path / "serve.log") as base:
        rows, headers = get_page(f"{base}/api/qrels/q/leaderboard")
        assert len(rows) == 50 and headers["x-total-count"] == "55" and headers["x-pages"] == "2"
        last, _ = get_page(f"{base}/api/qrels/q/leaderboard?page=2")
        assert len(last) == 5 and not {r["run"] for r in rows} & {r["run"] for r in last}
        ranks = [r["rank"] for r in rows + last]
        assert ranks == sorted(ranks) and ranks[0] == 1
        assert get(f"{base}/api/qrels/q/leaderboard?page=3")[0] == 404
        index = get_json(f"{base}/api/qrels")
        (listed,) = index["qrels"]
        assert listed["runs_total"] == 55 and [r["run"] for r in listed["runs"]] == [f"run_{s:02d}" for s in range(50)]
        status, _, html = get(f"{base}/")
        assert status == 200 and "The first 50 of 55 runs by name" in html and html.count('type="checkbox"') == 50


def test_a_run_page_of_many_runs_takes_its_baseline_typed_not_from_a_list_of_every_run(tmp_path):
    """A walk's run page over 10,000 runs weighed 1.4 MB, most of it a baseline list of 10,001
    options: above BASELINE_CHOICES runs the baseline is a name typed, as the compare page's is."""
    from warehouse.serve.app import BASELINE_CHOICES

    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"{q} 0 d{q}-{i} {i % 3}\n" for q in range(1, 3) for i in range(4)))
    folder = tmp_path / "runs"
    folder.mkdir()
    for s in range(BASELINE_CHOICES + 2):
        (folder / f"r{s:03d}.txt").write_text("".join(f"{q} Q0 d{q}-{(i + s) % 4} {i + 1} {10 - i} r{s:03d}\n"
                                                      for q in range(1, 3) for i in range(4)))
    db = tmp_path / "many.duckdb"
    with warehouse.open(db) as wh:
        wh.ingest_qrels(qrels, "q")
        wh.ingest_runs(sorted(folder.iterdir()))
    with served(str(db), log=tmp_path / "serve.log") as base:
        status, _, page = get(f"{base}/qrels/q/runs/r000?baseline=r001")
    assert status == 200, page[:500]
    assert '<select name="baseline"' not in page and 'name="baseline" id="baseline" value="r001"' in page
    assert len(page.encode()) < 100_000
