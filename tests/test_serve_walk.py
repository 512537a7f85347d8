"""What a user walking `irw serve` found, as the user met it: the real server in a subprocess (the
helpers of tests/test_serve.py) over DL19's six runs, one more whose documents are all unjudged,
and a user measure (`jprec`: precision among the judged documents of the top k) that is undefined
(NaN) for that run.

- A GET never adds a measure to the warehouse: ?m=P@12345, nDCG@7, AP(rel=3) ... (each a new set of
  scores for every run) is a 409 page naming the `irw eval` that stores it, and the file keeps its
  scores; trec_eval's usual measures, and those an `irw eval` stored for some run, are still
  computed on request (for the runs that lack them).
- ?page= past any list (99999999999999999999999, or 999999999 whose offset SQL cannot hold) is a
  400 that says which pages the list has, never a database error.
- A run whose mean is NaN is unranked (rank —, listed last, never the default baseline), as a run
  without a value; no page shows `nan` (charts leave such values off; the run page once gave 500).
"""
from __future__ import annotations

import json
import re
import time
from pathlib import Path
from urllib.parse import quote

import pytest

from test_serve import RUNS, get, get_json, irw, served

pytestmark = pytest.mark.conformance

NAN_RUN = "ALL_UNJUDGED"
JPREC = """-- measure: jprec
-- parameters: k=10
-- aggregate: mean
-- description: Precision among the judged documents of the top k: undefined (NaN) where none is judged.
select
    run_id,
    query_id,
    cast(count(*) filter (where is_rel and rank <= $k) as double)
        / cast(count(*) filter (where rank <= $k) as double) as value
from ranked_judged
group by run_id, query_id
"""

JPREC_DESCRIBED = "Precision among the judged documents of the top k: undefined (NaN) where none is judged."


@pytest.fixture(scope="module")
def walk(conformance, tmp_path_factory):
    folder = tmp_path_factory.mktemp("walk")
    dl19 = conformance / "dl19-passage"
    irw("ingest", "qrels", dl19 / "qrels.dl19-passage.txt", "--name", "dl19", cwd=folder)
    irw("ingest", "run", dl19 / "runs", cwd=folder)
    # BM25's ranking with every document renamed: the qrels judge none of them
    lines = (dl19 / "runs" / "run.dl19.BM25.txt").read_text().splitlines()
    unjudged = folder / "unjudged.txt"
    unjudged.write_text("".join(f"{q} {z} zz{doc} {rest}\n"
                                for q, z, doc, rest in (line.split(None, 3) for line in lines)))
    irw("ingest", "run", unjudged, "--name", NAN_RUN, cwd=folder)
    (folder / "jprec.sql").write_text(JPREC)
    irw("measures", "add", folder / "jprec.sql", cwd=folder)
    irw("eval", "-m", "jprec", cwd=folder)  # not one of trec_eval's: a page shows it once stored
    db = folder / "irw.duckdb"
    with served(str(db), log=folder / "serve.log", cwd=folder) as base:
        yield {"base": base, "db": db, "folder": folder}


def stored_measures(folder: Path) -> list[str]:
    out = irw("sql", "select distinct measure || '/' || level as m from score_values order by m",
              "--format", "csv", cwd=folder).stdout
    return out.splitlines()[1:]


# -- 1. a GET never adds a measure -------------------------------------------------------------------

UNSTORED = ["P@12345", "nDCG@7", "AP(rel=3)", "Rndcg.1=0,2=0,3=0", "jprec(k=3)"]


def test_a_measure_stored_for_no_run_is_a_409_that_names_the_irw_eval_and_stores_nothing(walk):
    base, folder = walk["base"], walk["folder"]
    assert get(f"{base}/qrels/dl19")[0] == 200  # the defaults, stored on the first request
    before = stored_measures(folder)
    for spec in UNSTORED + [f"P@{k}" for k in range(31, 41)]:  # a visitor trying one after another
        m = quote(spec)
        status, _, body = get(f"{base}/api/qrels/dl19/leaderboard?m={m}")
        assert status == 409, (spec, status, body[:300])
        answer = json.loads(body)
        assert "is stored for no run on dl19" in answer["error"] and "irw eval -m all_trec" in answer["error"]
        assert answer["command"].startswith("irw eval --db ") and "--qrels dl19 -m " in answer["command"]
    for spec in UNSTORED:  # every page that takes ?m=
        m = quote(spec)
        for url in (f"/qrels/dl19?m={m}", f"/qrels/dl19/runs/BM25?m={m}",
                    f"/qrels/dl19/compare?run=BM25&run=REP_LLAMA&m={m}", f"/qrels/dl19/history?m={m}",
                    f"/api/qrels/dl19/runs/BM25?m={m}", f"/api/qrels/dl19/history?m={m}"):
            status, _, body = get(base + url)
            assert status == 409 and "irw eval" in body, (url, status, body[:300])
    status, _, html = get(f"{base}/qrels/dl19?m=nDCG@7&m=AP")
    assert status == 409 and "<title>Scores not computed yet</title>" in html
    assert re.search(r'<pre id="command"><code>irw eval --db \S+ --qrels dl19 -m nDCG@7 -m AP -m Judged@10</code>',
                     html)
    # the message's commands as code, not backticks (a user-measure walk read them on the page), and the
    # settings it was looked for with said: an evaluation with -M 10 stores it for no run under these
    assert "(those of <code>irw eval -m all_trec</code>)" in html and "`" not in html.split('id="message"')[1]
    assert "stored for no run on dl19 with this page&#39;s settings (trec_eval&#39;s defaults)" in html
    assert stored_measures(folder) == before


def test_trec_eval_s_usual_measures_and_those_stored_already_are_still_computed_on_request(walk):
    base, folder = walk["base"], walk["folder"]
    rows = get_json(f"{base}/api/qrels/dl19/leaderboard?m=bpref&m=recall.100")
    assert round({r["run"]: r for r in rows}["BM25"]["Bpref"], 4) > 0
    assert {"Bpref/1", "R@100/1"} <= set(stored_measures(folder))
    # an operator stores nDCG@7 for one run: the page computes it for the others, as live as before
    irw("eval", "-m", "nDCG@7", "BM25", cwd=folder)
    rows = get_json(f"{base}/api/qrels/dl19/leaderboard?m=nDCG@7")
    assert set(RUNS) <= {r["run"] for r in rows if r["nDCG@7"] is not None}
    printed = irw("eval", "-m", "nDCG@7", "--format", "json", cwd=folder).stdout
    expected = {r["run"]: r["nDCG@7"] for r in json.loads(printed[printed.index("["):])}
    assert {r["run"]: r["nDCG@7"] for r in rows} == pytest.approx(expected)
    # the user measure under a parameter value no evaluation stored is not computed: jprec is
    assert get(f"{base}/api/qrels/dl19/leaderboard?m=jprec")[0] == 200
    assert get(f"{base}/api/qrels/dl19/leaderboard?m=jprec(k%3D3)")[0] == 409


# -- 2. a page past any list -------------------------------------------------------------------------

@pytest.mark.parametrize(("query", "says"), [
    ("page=99999999999999999999999", "?page='99999999999999999999999' is past the last page: 7 runs make 1 page of 50; "
                                     "give a whole number from 1 to 1"),
    ("page=99999999999999999999999&per_page=3", "7 runs make 3 pages of 3; give a whole number from 1 to 3"),
    ("page=999999999", "?page='999999999' is past the last page: 7 runs make 1 page of 50"),  # was DuckDB's INT32 error
    ("page=4294969&per_page=500", "give a whole number from 1 to 1"),  # its offset: past 2**31 - 1
    ("page=" + "9" * 5000, "is past the last page"),  # past int()'s 4,300 digits
])
def test_a_page_past_any_list_is_a_400_that_says_which_pages_there_are(walk, query, says):
    base = walk["base"]
    status, _, body = get(f"{base}/api/qrels/dl19/leaderboard?{query}")
    assert status == 400 and says in json.loads(body)["error"], body[:300]
    status, headers, html = get(f"{base}/qrels/dl19?{query}")
    assert status == 400 and headers["content-type"].startswith("text/html")
    assert says.replace("'", "&#39;") in html and re.search(r'<a id="back" href="/qrels/dl19(\?per_page=\d+)?">', html)


@pytest.mark.parametrize(("query", "status", "says"), [
    ("page=%C2%B2", 400, "?page='²' is not allowed: give a whole number from 1"),  # str.isdigit's, int()'s not
    ("page=%D9%A1", 400, "is not allowed: give a whole number from 1"),
    ("page=2147483648&per_page=1", 404, "page 2147483648 is past the last: 7 runs make 7 pages of 1"),
    ("page=00002&per_page=6", 200, None),
])
def test_other_page_numbers(walk, query, status, says):
    got, _, body = get(f"{walk['base']}/api/qrels/dl19/leaderboard?{query}")
    assert got == status, body[:300]
    if says:
        assert says in json.loads(body)["error"]
    else:
        assert [r["run"] for r in json.loads(body)] == [NAN_RUN]


# -- 3. a NaN mean ---------------------------------------------------------------------------------

def test_a_run_whose_mean_is_nan_is_unranked_and_last_never_the_default_baseline(walk):
    base, folder = walk["base"], walk["folder"]
    rows = get_json(f"{base}/api/qrels/dl19/leaderboard?m=jprec&m=AP")
    assert rows[-1]["run"] == NAN_RUN and rows[-1]["rank"] is None and rows[-1]["jprec"] is None
    assert [r["rank"] for r in rows[:-1]] == list(range(1, len(RUNS) + 1))
    assert rows[0]["run"] == "D_BERT_KD_TASB" and rows[0]["delta_jprec"] == 0.0  # the default baseline
    assert any(r["p_adjusted_jprec"] is not None for r in rows)  # tested against it, unlike against a NaN
    # sorted by the column, either way, the NaN stays last, as a missing value does
    for order in ("asc", "desc"):
        assert get_json(f"{base}/api/qrels/dl19/leaderboard?m=jprec&sort=jprec&order={order}")[-1]["run"] == NAN_RUN
    # the static report ranks it so too
    printed = json.loads(irw("report", "leaderboard", "--qrels", "dl19", "-m", "jprec", "-m", "AP", "--format",
                             "json", cwd=folder).stdout)
    assert printed == rows
    # as a baseline of one's own: told why not
    status, _, body = get(f"{base}/api/qrels/dl19/leaderboard?m=jprec&baseline={NAN_RUN}")
    assert status == 400 and "its jprec on dl19 is undefined (nan)" in json.loads(body)["error"]
    status, _, html = get(f"{base}/qrels/dl19?m=jprec&m=AP")
    row = html[html.index(f'data-value="{NAN_RUN}"') - 80:]
    assert re.match(r'.*?<td class="num" data-value="">—</td>\s*<td class="run', row, re.S)  # rank: —
    assert "Baseline: <strong>D_<wbr>BERT_<wbr>KD_<wbr>TASB</strong>, the top run" in html


@pytest.mark.parametrize("url", [
    "/qrels/dl19?m=jprec&m=AP",
    "/qrels/dl19?m=AP&m=jprec&baseline=BM25",
    f"/qrels/dl19/runs/{NAN_RUN}?m=jprec&baseline=BM25",  # was a 500: a NaN in the difference chart
    f"/qrels/dl19/runs/BM25?m=jprec&baseline={NAN_RUN}",
    f"/qrels/dl19/compare?run=BM25&run={NAN_RUN}&m=jprec",  # its scatter drew points at nan
    f"/qrels/dl19/compare?run=BM25&run={NAN_RUN}&run=REP_LLAMA&m=jprec",
    "/qrels/dl19/history?m=jprec",  # its dots too
])
def test_no_page_shows_nan(walk, url):
    status, _, html = get(walk["base"] + url)
    assert status == 200, html[-2000:]
    # the measure's own description says "undefined (NaN)": its words, not a value shown
    html = html.replace(JPREC_DESCRIBED, "")
    assert not re.search(r"\bnan\b", html, re.I), re.search(r".{0,80}\bnan\b.{0,40}", html, re.I).group(0)


@pytest.mark.parametrize(("path", "query", "says"), [
    ("", "m=AP&level=2", "?level= is not a parameter of this page; it takes ?m=, ?run=, ?system=, ?baseline=, "
                         "?filter=, ?sort=, ?order=, ?page=, ?per_page=; a relevance level is part of a measure's "
                         "name: ?m=AP(rel=2)"),
    ("/runs/BM25", "sort=AP", "?sort= is not a parameter of this page; it takes ?m=, ?baseline=, ?query="),
    ("/compare", "run=BM25&run=REP_LLAMA&J=1", "?J= is not a parameter of this page; it takes ?m=, ?run=, ?system=, "
                                               "?baseline="),
    ("/history", "m=AP&<b>x</b>=1", "?<b>x</b>= is not a parameter of this page; it takes ?m=, ?run=, ?system="),
])
def test_a_parameter_a_page_does_not_take_is_a_400_not_ignored(walk, path, query, says):
    """A reviewer's walk: /qrels/dl19?m=AP&level=2 answered 200 with level 1's numbers, as if the
    level had been taken; a page ignored every parameter it does not read."""
    base = walk["base"]
    api = "/leaderboard" if path == "" else path
    status, _, body = get(f"{base}/api/qrels/dl19{api}?{query}")
    assert status == 400 and json.loads(body)["error"] == says, body[:400]
    status, _, html = get(f"{base}/qrels/dl19{path}?{query}")
    assert status == 400 and "<b>x</b>=" not in html
    if "<b>" in query:  # the name given, escaped as the page escapes every name
        assert "?&lt;b&gt;x&lt;/b&gt;= is not a parameter of this page" in html
    assert get(f"{base}/qrels/dl19{path}?{query.rpartition('&')[0]}")[0] == 200


@pytest.mark.parametrize("query", ["m=AP&m=nDCG@10", "m=AP+nDCG@10", "m=P.5,10"])
def test_a_history_of_several_measures_is_a_400_as_the_command_s_refusal(walk, query):
    """The served history drew the first of several measures; `irw report history -m AP -m nDCG@10`
    refuses them (a history follows one measure)."""
    base = walk["base"]
    status, _, body = get(f"{base}/api/qrels/dl19/history?{query}")
    assert status == 400 and "the history follows one measure, and 2 were given" in json.loads(body)["error"], body[:300]
    status, _, html = get(f"{base}/qrels/dl19/history?{query}")
    assert status == 400 and "the history follows one measure" in html
    assert get(f"{base}/api/qrels/dl19/history?m=nDCG@10")[0] == 200


def test_a_measure_added_while_serving_is_on_the_leaderboard_without_a_restart(walk):
    """`irw measures add` and `irw eval` while the server ran: ?m= of the new measure was "unknown
    measure" (a 400) until the server was restarted (the leaderboard parses its columns before it
    opens the warehouse, which is when a warehouse's measures become known)."""
    base, folder = walk["base"], walk["folder"]
    (folder / "half.sql").write_text(JPREC.replace("jprec", "halfwalk").replace("k=10", "none").replace(
        "cast(count(*) filter (where is_rel and rank <= $k) as double)\n        / cast(count(*) filter (where rank <= $k) as double)",
        "0.5"))
    irw("measures", "add", folder / "half.sql", cwd=folder)
    irw("eval", "-m", "halfwalk", "--qrels", "dl19", cwd=folder)
    rows = get_json(f"{base}/api/qrels/dl19/leaderboard?m=halfwalk")
    assert rows and {row["halfwalk"] for row in rows if row["run"] != NAN_RUN} == {0.5}, rows[:2]
    status, _, html = get(f"{base}/qrels/dl19?m=halfwalk")
    assert status == 200 and "halfwalk" in html


def test_a_measure_that_never_ends_is_cut_at_serve_s_timeout_and_the_other_pages_answer(conformance, tmp_path):
    """A hostile walk's measure, endless for every run but the first, stored for the first: the
    leaderboard that computed it for the others held the DuckDB warehouse, and with it every page
    and the SQL console, for minutes. It is cut at `--timeout`, as a console statement is."""
    dl19 = conformance / "dl19-passage"
    irw("ingest", "qrels", dl19 / "qrels.dl19-passage.txt", "--name", "dl19", cwd=tmp_path)
    for run in ("BM25", "REP_LLAMA"):
        irw("ingest", "run", dl19 / "runs" / f"run.dl19.{run}.txt", "--name", run, cwd=tmp_path)
    (tmp_path / "trap.sql").write_text(
        "-- measure: trap\n-- parameters: none\n-- aggregate: mean\n"
        "with recursive r(n) as (select 1 where exists (select 1 from ranked_judged where run_id <> 1) "
        "union all select n + 1 from r)\n"
        "select run_id, query_id, cast((select count(*) from r) as double) as value from ranked_judged "
        "group by run_id, query_id\n")
    irw("measures", "add", tmp_path / "trap.sql", cwd=tmp_path)
    irw("eval", "-m", "trap", "BM25", cwd=tmp_path)  # run 1: no row of r, a value at once
    with served(str(tmp_path / "irw.duckdb"), "--timeout", "1", log=tmp_path / "serve.log", cwd=tmp_path) as base:
        started = time.monotonic()
        status, _, body = get(f"{base}/api/qrels/dl19/leaderboard?m=trap", timeout=60)
        assert status >= 400 and "ran longer than 1 s and was stopped" in json.loads(body)["error"], body[:300]
        assert time.monotonic() - started < 30
        assert get(f"{base}/api/sql?q=select%201", timeout=10)[0] == 200


# A teammate's run stored between the index's two reads (the stored runs, then the runs each qrels
# set judges: statements of their own, on PostgreSQL no snapshot of one another), made certain:
# every set's runs gain one `runs` did not have.
RUN_STORED_MEANWHILE = """
import sys
import warehouse.core as core
judged = core.Warehouse.select_runs
def select_runs(self, *args, **kwargs):  # only the index is asked for here
    return [*judged(self, *args, **kwargs), "stored-meanwhile"]
core.Warehouse.select_runs = select_runs
from warehouse.__main__ import main
sys.argv[0] = "irw"
main()
"""


def test_the_index_answers_while_a_teammate_stores_a_run(walk, tmp_path):
    """A walk of a team on PostgreSQL: `/` and `/api/qrels` were a 500 (KeyError in index_data)
    whenever a run was committed between the index's two reads."""
    import subprocess
    import sys

    from test_serve import free_port

    port = free_port()
    with open(tmp_path / "serve.log", "w") as log:
        process = subprocess.Popen([sys.executable, "-c", RUN_STORED_MEANWHILE, "serve", "--db", str(walk["db"]),
                                    "--port", str(port)], stdout=subprocess.DEVNULL, stderr=log,
                                   cwd=Path(__file__).resolve().parent.parent)
    try:
        deadline = time.monotonic() + 60
        while True:
            status, _, body = get(f"http://127.0.0.1:{port}/api/qrels", timeout=10) if _listening(port) else (0, {}, "")
            if status:
                break
            assert process.poll() is None and time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
            time.sleep(0.2)
        assert status == 200, body[:500]
        assert "stored-meanwhile" not in body and "BM25" in body
        assert get(f"http://127.0.0.1:{port}/", timeout=10)[0] == 200
    finally:
        process.terminate()
        process.wait(timeout=15)


def _listening(port: int) -> bool:
    import socket

    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def test_the_systems_page_names_every_set_a_measure_is_not_stored_on_and_evaluates_only_those(
        multi_collection, tmp_path):
    """A walk: /systems?m=M, M stored by an `irw eval` on one of three qrels sets, was refused naming
    one other set, and its command evaluated all three, the one holding the scores too."""
    qrels = {"dl21": "qrels.dl21-passage.txt", "covid": "qrels.beir-v1.0.0-trec-covid.test.txt",
             "news": "qrels.beir-v1.0.0-trec-news.test.txt"}
    for name, file in qrels.items():
        irw("ingest", "qrels", multi_collection / "qrels" / file, "--name", name, cwd=tmp_path)
    irw("ingest", "run", *sorted((multi_collection / "runs").glob("*/")), cwd=tmp_path)
    irw("eval", "--qrels", "dl21", "-m", "P@37", cwd=tmp_path)
    with served(str(tmp_path / "irw.duckdb"), log=tmp_path / "serve.log", cwd=tmp_path) as base:
        status, _, body = get(f"{base}/api/systems?m=P@37")
        assert status == 409, body[:300]
        answer = json.loads(body)
        assert "P@37 is stored for no run on covid, news with this page's settings" in answer["error"], answer
        assert "stored already for some run of the qrels set" in answer["error"]
        commands = answer["command"].split(" && ")
        assert [re.search(r"--qrels (\S+)", c).group(1) for c in commands] == ["covid", "news"], commands
        # once stored there too, the page is the table
        for name in ("covid", "news"):
            irw("eval", "--qrels", name, "-m", "P@37", cwd=tmp_path)
        status, _, body = get(f"{base}/api/systems?m=P@37")
        assert status == 200, body[:300]
