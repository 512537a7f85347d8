"""`irw report systems`: systems x collections on one measure, on the multi-collection data
(../shared/conformance/multi-collection: 3 systems x 4 collections, qrels of 3), each value checked
against trec_eval 9.0.8's own output for that run, the mean against the mean of trec_eval's values.
A warehouse of nightly runs shows each system's latest run on a set; a system without a run on
every set has no mean and is not ranked; a user's mistakes get a message that says what to do; the
page fits a desktop and a phone in Chromium."""
from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import warehouse
from warehouse import reports
from warehouse.commands.irw import app
from warehouse.errors import NotFoundError, UsageError

from test_browser import GEOMETRY, WIDTHS, Page, browser, chromium, png_size  # noqa: F401 - fixtures

SYSTEMS = ("BM25", "BM25_RM3", "SPLADE_P_P_ENSEMBLE_DISTIL")
JUDGED = ("covid", "dl21", "news")  # by name: the default column order
QRELS = {"dl21": "qrels.dl21-passage.txt", "covid": "qrels.beir-v1.0.0-trec-covid.test.txt",
         "news": "qrels.beir-v1.0.0-trec-news.test.txt"}


def irw(*args) -> "CliRunner.invoke":
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def ok(*args):
    result = irw(*args)
    assert result.exit_code == 0, (args, result.stderr)
    return result


@pytest.fixture(scope="module")
def data(multi_collection) -> Path:
    return multi_collection


def trec_eval(data: Path, collection: str, system: str, name: str = "ndcg_cut_10") -> float:
    """trec_eval 9.0.8's summary ("all") value of one measure for one run."""
    for line in (data / "expected" / f"{collection}.{system}.all_trec.q.v9.txt").read_text().splitlines():
        measure, query, value = line.split()
        if measure == name and query == "all":
            return float(value)
    raise AssertionError(f"{name} not in {collection}.{system}")


@pytest.fixture(scope="module")
def db(tmp_path_factory, data) -> Path:
    """The twelve runs as their publisher keeps them (a folder per system) and three qrels sets."""
    path = tmp_path_factory.mktemp("systems") / "w.duckdb"
    for name, file in QRELS.items():
        ok("ingest", "qrels", data / "qrels" / file, "--name", name, "--db", path)
    ok("ingest", "run", *[data / "runs" / system for system in SYSTEMS], "--db", path)
    return path


def copy_of(db: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "w.duckdb"
    shutil.copyfile(db, copy)
    return copy


def test_each_value_is_trec_eval_s_and_the_mean_is_over_every_set(db, data):
    result = ok("report", "systems", "-m", "nDCG@10", "--format", "csv", "--db", db)
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert list(rows[0]) == ["rank", "system", *JUDGED, "mean"]
    assert sorted(row["system"] for row in rows) == sorted(SYSTEMS)
    for row in rows:
        values = [trec_eval(data, collection, row["system"]) for collection in JUDGED]
        for collection, value in zip(JUDGED, values):
            assert abs(float(row[collection]) - value) <= 0.00005, (row["system"], collection)
        # trec_eval prints 4 decimals: the mean of its values is within their rounding of the mean
        assert abs(float(row["mean"]) - sum(values) / len(values)) <= 0.00005, row
    means = [float(row["mean"]) for row in rows]
    assert means == sorted(means, reverse=True) and [row["rank"] for row in rows] == ["1", "2", "3"]
    assert rows[0]["system"] == "SPLADE_P_P_ENSEMBLE_DISTIL"
    # DL 2022's runs have no qrels: left out, and said so
    assert ("# 3 runs left out: no qrels set of the table judges them (BM25.dl22, BM25_RM3.dl22, "
            "SPLADE_P_P_ENSEMBLE_DISTIL.dl22)") in result.stderr.splitlines()


def test_the_qrels_given_are_the_columns_in_their_order_and_a_level_reaches_every_set(db, data):
    result = ok("report", "systems", "-m", "AP", "--qrels", "news", "--qrels", "dl21", "-f", "json", "--db", db)
    rows = json.loads(result.stdout)
    assert list(rows[0]) == ["rank", "system", "news", "dl21", "mean"]
    for row in rows:
        assert abs(row["dl21"] - trec_eval(data, "dl21", row["system"], "map")) <= 0.00005
    # DL's binary measures at grade 2: trec_eval -l 2
    rows = json.loads(ok("report", "systems", "-m", "AP(rel=2)", "--qrels", "dl21", "-f", "json", "--db", db).stdout)
    for row in rows:
        level2 = (data / "expected" / f"dl21.{row['system']}.all_trec.q.l2.v9.txt").read_text().splitlines()
        (value,) = [float(line.split()[2]) for line in level2 if line.split()[:2] == ["map", "all"]]
        assert abs(row["dl21"] - value) <= 0.00005 and row["mean"] == row["dl21"]


def test_a_system_s_latest_run_on_a_set_is_its_value(db, data, tmp_path):
    """A night later, BM25 on covid is another run (SPLADE's covid file, as a stand-in): the table
    takes it, says a value was chosen among several runs, and names the run behind it."""
    path = copy_of(db, tmp_path)
    ok("ingest", "run", data / "runs" / "SPLADE_P_P_ENSEMBLE_DISTIL" / "trec_results_covid.txt", "--name",
       "BM25.covid.next", "--system", "BM25", "--date", "2099-01-01", "--db", path)
    result = ok("report", "systems", "-m", "nDCG@10", "-f", "json", "--db", path)
    bm25 = next(row for row in json.loads(result.stdout) if row["system"] == "BM25")
    assert abs(bm25["covid"] - trec_eval(data, "covid", "SPLADE_P_P_ENSEMBLE_DISTIL")) <= 0.00005
    assert abs(bm25["dl21"] - trec_eval(data, "dl21", "BM25")) <= 0.00005
    assert ("# 1 value of a system with several runs on one set: the latest run's (by run date; the HTML page "
            "names each value's run)") in result.stderr.splitlines()
    with warehouse.open(path) as wh:
        page = reports.systems(wh, "nDCG@10")
        behind = {(r[0], r[1]): (r[2], r[6]) for r in page.runs_table().rows}
    assert behind[("BM25", "covid")] == ("BM25.covid.next", 2) and behind[("BM25", "dl21")] == ("BM25.dl21", 1)
    html = reports.render_systems(page)
    assert "BM25.covid.next" in html and "the latest of 2 runs" in html


def test_a_system_without_a_run_on_every_set_has_no_mean_and_comes_last(db, data, tmp_path):
    path = copy_of(db, tmp_path)
    ok("ingest", "run", data / "runs" / "BM25" / "trec_results_news.txt", "--name", "only-news",
       "--system", "a-news-only-system", "--db", path)
    result = ok("report", "systems", "-m", "nDCG@10", "-f", "json", "--db", path)
    rows = json.loads(result.stdout)
    assert rows[-1] == {"rank": None, "system": "a-news-only-system", "covid": None, "dl21": None,
                        "news": pytest.approx(trec_eval(data, "news", "BM25"), abs=0.00005), "mean": None}
    assert [row["rank"] for row in rows[:-1]] == [1, 2, 3]
    assert ("# 1 system without a run judged by each of the 3 qrels sets: no mean, unranked (a-news-only-system)"
            in result.stderr.splitlines())


def test_a_value_over_part_of_a_set_s_queries_is_said_beside_the_table(db, data, tmp_path):
    """A system's latest run answering 20 of news's queries sat in the table beside values over all
    of them with nothing said (the page names each value's run and its queries; the table did not)."""
    path = copy_of(db, tmp_path)
    lines = (data / "runs" / "BM25" / "trec_results_news.txt").read_text().splitlines(keepends=True)
    queries = list(dict.fromkeys(line.split()[0] for line in lines))
    part = tmp_path / "part.txt"
    part.write_text("".join(line for line in lines if line.split()[0] in set(queries[:20])))
    ok("ingest", "run", part, "--name", "BM25.news.part", "--system", "BM25", "--date", "2100-01-01", "--db", path)
    result = ok("report", "systems", "-m", "nDCG@10", "-f", "table", "--db", path)
    said = [line for line in result.stderr.splitlines() if "fewer queries" in line]
    assert said == [f"# 1 value over fewer queries than its qrels set has (BM25 on news: run BM25.news.part, "
                    f"20 of {len(queries)}): a mean over other queries, as trec_eval averages a run over the queries "
                    "it answers; -c counts each query a run misses as 0"], result.stderr
    with warehouse.open(path) as wh:
        assert ("1 value is a mean over fewer queries than its qrels set has (the queries column below)"
                in reports.render_systems(reports.systems(wh, "nDCG@10")))
    complete = ok("report", "systems", "-m", "nDCG@10", "-c", "-f", "table", "--db", path)
    assert "fewer queries" not in complete.stderr
    assert "fewer queries" not in ok("report", "systems", "-m", "nDCG@10", "-f", "table", "--db", db).stderr


def test_mistakes_say_what_to_do(db, tmp_path):
    result = irw("report", "systems", "-m", "nDCG@10", "-m", "AP", "-f", "table", "--db", db)
    assert result.exit_code == 2
    assert "the systems table shows one measure, and 2 were given (nDCG@10, AP): name one (-m nDCG@10)" in result.stderr
    result = irw("report", "systems", "*.dl22", "--qrels", "covid", "-f", "table", "--db", db)
    assert result.exit_code == 1
    assert "qrels 'covid' judges none of the 3 runs chosen" in result.stderr
    result = irw("report", "systems", "--db", db)
    assert result.exit_code == 2 and "write the report with -o FILE" in result.stderr
    # runs and no qrels: nothing to put in a column
    run = tmp_path / "one.run"
    run.write_text("q1 Q0 d1 1 1.0 tag\n")
    with warehouse.open(tmp_path / "runs-only.duckdb") as wh:
        wh.ingest_run(run, name="r")
        with pytest.raises(NotFoundError, match="no stored qrels set judges a query of the 1 run chosen: ingest"):
            reports.systems(wh, "AP")
        with pytest.raises(UsageError, match="the systems table shows one measure"):
            reports.systems(wh, ["AP", "P@10"])


def test_the_page_fits_a_desktop_and_a_phone(browser, db, data, tmp_path):
    """Also with a later night's run, named as ingest names it (BM25.dl21.2099-01-01): at 390 px names
    break only after _ - / : . (a team walk saw BM25.dl21.2 / 026-11-03)."""
    from test_browser import NAME_LINES

    db = copy_of(db, tmp_path)
    ok("ingest", "run", data / "runs" / "BM25_RM3" / "trec_results_dl21.txt", "--name", "BM25.dl21.2099-01-01",
       "--system", "BM25", "--date", "2099-01-01", "--db", db)
    path = tmp_path / "systems.html"
    ok("report", "systems", "-m", "nDCG@10", "-o", path, "--db", db)
    html = path.read_text(encoding="utf-8")
    assert "<h1>Systems <span class=\"sub\">nDCG@10 on 3 qrels sets</span></h1>" in html
    assert 'href="' not in html.split("<main>", 1)[1]  # a file of its own links to no page
    page = Page(browser, path)
    assert page.errors() == [] and set(page.requests()) == {page.url}
    for width in WIDTHS:
        page.set_width(width)
        assert page.js(GEOMETRY) == [], width
        assert width - 20 <= png_size(page.screenshot(tmp_path / f"systems-{width}.png"))[0] <= width
        names = page.js(NAME_LINES % json.dumps("main td.run"))
        assert "BM25.dl21.2099-01-01" in ["".join(lines) for lines in names]
        for lines in names:
            assert all(line[-1] in "_-/:." for line in lines[:-1]), (width, lines)  # never mid-word
    # the table sorts by a set's column on a click
    page.set_width(1280)
    page.click("#systems thead th:nth-child(5)")  # news
    order = page.js("Array.from(document.querySelectorAll('#systems tbody tr td:nth-child(2)')).map(c => c.textContent)")
    by_news = ["BM25_RM3", "SPLADE_P_P_ENSEMBLE_DISTIL", "BM25"]  # 0.4262, 0.4152, 0.3952: not the rank order
    assert order in (by_news, by_news[::-1])
    assert page.errors() == []


# -- served: irw serve's /systems ------------------------------------------------------------------
@pytest.fixture(scope="module")
def server(db, tmp_path_factory):
    from test_serve import served

    folder = tmp_path_factory.mktemp("systems-served")
    served_db = folder / "w.duckdb"
    shutil.copyfile(db, served_db)
    with served(str(served_db), log=folder / "serve.log", cwd=folder) as base:
        yield base, served_db


def test_the_served_table_is_the_command_s_and_the_index_links_it(server, data):
    from test_serve import get, get_json

    base, served_db = server
    rows = get_json(f"{base}/api/systems?m=nDCG@10")  # scores the page computes and stores itself
    command = json.loads(ok("report", "systems", "-m", "nDCG@10", "-f", "json", "--db", served_db).stdout)
    assert rows == command
    assert [row["system"] for row in rows] == ["SPLADE_P_P_ENSEMBLE_DISTIL", "BM25_RM3", "BM25"]
    for row in rows:
        assert abs(row["news"] - trec_eval(data, "news", row["system"])) <= 0.00005
    rows = get_json(f"{base}/api/systems?m=AP&qrels=dl21&qrels=covid&system=BM25")
    assert list(rows[0]) == ["rank", "system", "dl21", "covid", "mean"] and [r["system"] for r in rows] == ["BM25"]
    status, _headers, html = get(f"{base}/systems?m=nDCG@10")
    assert status == 200
    assert '<a href="/qrels/covid?m=nDCG%4010">covid</a>' in html and 'href="/api/systems?m=nDCG%4010"' in html
    # each value opens its run's page on that set, with the table's measure (a team's drill-down)
    link = '/qrels/covid/runs/SPLADE_P_P_ENSEMBLE_DISTIL.covid?m=nDCG%4010'
    assert f'<a href="{link}"><strong>0.7274</strong></a>' in html
    status, _headers, run_page = get(base + link)
    assert status == 200 and "SPLADE_P_P_ENSEMBLE_DISTIL.covid" in run_page
    # the form holds the page's columns, one box each and an empty one to add a set (a walk found one box)
    assert [f'name="qrels" value="{q}"' in html for q in JUDGED] == [True] * 3 and 'name="qrels" value=""' in html
    status, _headers, index = get(f"{base}/")
    assert status == 200 and '<a href="/systems">Systems across the qrels sets</a>' in index


def test_served_mistakes_are_said_as_the_command_says_them(server):
    from test_serve import get

    base, _db = server
    status, _headers, body = get(f"{base}/api/systems?m=AP&m=P@10")
    assert status == 400 and "the systems table shows one measure, and 2 were given (AP, P@10)" in json.loads(body)["error"]
    status, _headers, body = get(f"{base}/api/systems?qrels=dl22")
    assert status == 404 and "no qrels set named 'dl22'" in json.loads(body)["error"]
    status, _headers, body = get(f"{base}/api/systems?measure=AP")
    assert status == 400 and "?measure= is not a parameter of this page" in json.loads(body)["error"]


def test_the_served_page_fits_a_desktop_and_a_phone(browser, server, tmp_path):
    base, _db = server
    from test_serve import ServedPage

    page = ServedPage(browser, f"{base}/systems?m=nDCG@10")
    assert page.errors() == []
    for width in WIDTHS:
        page.set_width(width)
        assert page.js(GEOMETRY) == [], width
        assert width - 20 <= png_size(page.screenshot(tmp_path / f"served-systems-{width}.png"))[0] <= width


def test_a_notebook_gets_the_table_the_command_prints(db, data):
    """wh.systems is `irw report systems`' table, its options the settings (level=2: trec_eval -l 2)."""
    command = json.loads(ok("report", "systems", "-m", "AP", "-l", "2", "-f", "json", "--db", db).stdout)
    with warehouse.open(db) as wh:
        page = wh.systems("AP", level=2)
        assert page.table().to_dicts() == command
        assert repr(page).startswith("<Systems by AP: 3 systems on 3 qrels sets (covid, dl21, news); ")
        frame = page.table()
    for row in frame.to_dicts():
        level2 = (data / "expected" / f"dl21.{row['system']}.all_trec.q.l2.v9.txt").read_text().splitlines()
        (value,) = [float(line.split()[2]) for line in level2 if line.split()[:2] == ["map", "all"]]
        assert abs(row["dl21"] - value) <= 0.00005


def test_a_qrels_set_named_as_a_fixed_column_keeps_the_table_s_columns_apart(db, data, tmp_path):
    """(A walk) qrels sets renamed mean, system and rank: the JSON's "mean" was covid's value and the
    real mean was "mean_1"; CSV had two columns of each name."""
    path = copy_of(db, tmp_path)
    for old, new in (("covid", "mean"), ("dl21", "System"), ("news", "rank")):
        ok("rename", "qrels", old, new, "--db", path)
    result = ok("report", "systems", "-m", "nDCG@10", "-f", "json", "--db", path)
    rows = json.loads(result.stdout)
    assert list(rows[0]) == ["rank", "system", "System (qrels)", "mean (qrels)", "rank (qrels)", "mean"]
    for row in rows:
        values = [trec_eval(data, collection, row["system"]) for collection in ("dl21", "covid", "news")]
        assert abs(row["mean"] - sum(values) / 3) <= 0.00005 and abs(row["mean (qrels)"] - values[1]) <= 0.00005
    assert "# qrels mean is the column 'mean (qrels)': the table's own mean column keeps its name" in \
        result.stderr.splitlines()
    header = ok("report", "systems", "-m", "nDCG@10", "-f", "csv", "--db", path).stdout.splitlines()[0]
    assert header == "rank,system,System (qrels),mean (qrels),rank (qrels),mean"


def test_a_measure_at_a_level_of_its_own_says_so_beside_the_settings(db):
    result = ok("report", "systems", "-m", "AP(rel=2)", "--qrels", "dl21", "-f", "table", "--db", db)
    notes = result.stderr.splitlines()
    assert notes[0].startswith("# AP(rel=2) of each system's latest run on each qrels set; trec_eval 9.0.8 "
                               "conventions; relevant: grade >= 1;")
    assert notes[1] == "# AP(rel=2): relevant means grade >= 2"


def test_a_column_of_partial_runs_alone_is_said_against_the_set_s_queries(data, tmp_path):
    """A walk's covid column held only runs of a 16-query part of covid (each system's latest): the
    note compared them with the column's most, 16 of 17, or said nothing, where covid has 50."""
    path = tmp_path / "irw.duckdb"
    ok("ingest", "qrels", data / "qrels" / "qrels.beir-v1.0.0-trec-covid.test.txt", "--name", "covid", "--db", path)
    lines = (data / "runs" / "BM25" / "trec_results_covid.txt").read_text().splitlines(keepends=True)
    queries = list(dict.fromkeys(line.split()[0] for line in lines))
    part = tmp_path / "part.txt"
    part.write_text("".join(line for line in lines if line.split()[0] in set(queries[:16])))
    ok("ingest", "run", data / "runs" / "BM25" / "trec_results_covid.txt", "--name", "BM25.covid", "--system", "BM25",
       "--date", "2026-01-01", "--db", path)
    ok("ingest", "run", part, "--name", "BM25.covid.part", "--system", "BM25", "--date", "2026-01-02", "--db", path)
    result = ok("report", "systems", "-m", "nDCG@10", "-f", "table", "--db", path)
    assert (f"# 1 value over fewer queries than its qrels set has (BM25 on covid: run BM25.covid.part, 16 of "
            f"{len(queries)})") in result.stderr, result.stderr
