"""The report SQL (sql/reports/) and schema 009 follow the evaluation SQL's portability rules
(tests/test_portable_sql.py): no construct PostgreSQL reads otherwise, every file transpiles
duckdb -> postgres with unsupported_level=RAISE, every FROM subquery has an alias; and on a real
PostgreSQL (marked `postgres`) the leaderboard, compare and history of DL19's six runs give
DuckDB's numbers, with test results stored and read back there too."""
from __future__ import annotations

import math
import re

import pytest
import sqlglot
from sqlglot.errors import ErrorLevel

import warehouse
from test_portable_sql import FORBIDDEN, unaliased_subqueries, without_comments
from warehouse import reports
from warehouse.resources import read_sql, sql_dir

REPORT_FILES = sorted(f"reports/{p.name}" for p in (sql_dir() / "reports").glob("*.sql")) + \
    ["schema/009_significance_results.sql"]


def test_the_report_files_are_there():
    assert {"reports/leaderboard.sql", "reports/paired_scores.sql", "reports/stored_tests.sql",
            "reports/store_tests.sql"} <= set(REPORT_FILES)


@pytest.mark.parametrize("path", REPORT_FILES)
def test_uses_no_construct_postgres_reads_otherwise(path):
    code = without_comments(read_sql(path))
    found = [f"{what}: {match.group(0)!r} ({why})" for what, pattern, why, _ in FORBIDDEN
             for match in [re.search(pattern, code, re.IGNORECASE)] if match]
    assert not found, f"sql/{path}:\n" + "\n".join(found)


@pytest.mark.parametrize("path", REPORT_FILES)
def test_transpiles_to_postgres_and_aliases_its_subqueries(path):
    sql = read_sql(path)
    written = sqlglot.transpile(sql, read="duckdb", write="postgres", unsupported_level=ErrorLevel.RAISE)
    assert written and all(written)
    assert not unaliased_subqueries(sql)


def dl19_warehouse(target, source) -> None:
    with warehouse.open(target) as wh:
        wh.ingest_qrels(source / "qrels.dl19-passage.txt", "dl19")
        for run in sorted((source / "runs").glob("run.dl19.*.txt")):
            wh.ingest_run(run, run.name[len("run.dl19."):-len(".txt")], date="2026-01-0" + str(len(run.name) % 9 + 1))


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-15)
    return a == b


def assert_same_tables(duck, pg, what: str) -> None:
    assert duck.columns == pg.columns, what
    assert len(duck.rows) == len(pg.rows), what
    for d, p in zip(duck.rows, pg.rows):
        assert all(same(x, y) for x, y in zip(d, p)), (what, d, p)


def test_reports_on_postgresql_give_duckdbs_numbers(postgres_url, conformance, tmp_path):
    source = conformance / "dl19-passage"
    duck_path = tmp_path / "irw.duckdb"
    dl19_warehouse(duck_path, source)
    dl19_warehouse(postgres_url, source)
    tables = {}
    for name, target in (("duckdb", duck_path), ("postgres", postgres_url)):
        with warehouse.open(target) as wh:
            board = reports.leaderboard(wh, "dl19", ["nDCG@10", "AP"], baseline="BM25")
            comparison = reports.compare(wh, wh.run_names(), "dl19", ["nDCG@10", "AP"], baseline="BM25")
            again = reports.compare(wh, wh.run_names(), "dl19", ["nDCG@10", "AP"], baseline="BM25")
            stored = wh.db.fetchone("select count(*) from significance_results")[0]
            history = reports.history(wh, "dl19", "nDCG@10")
            written = reports.write_leaderboard(wh, "dl19", tmp_path / name / "board.html", ["nDCG@10", "AP"],
                                                baseline="BM25")
        tables[name] = (board.table(), comparison.table(), again.table(), history.table(), stored, len(written))
    duck, pg = tables["duckdb"], tables["postgres"]
    for index, what in enumerate(("leaderboard", "compare", "compare from stored results", "history")):
        assert_same_tables(duck[index], pg[index], what)
    assert duck[4] == pg[4] == 10  # 5 runs x 2 measures, stored once and read back
    assert duck[5] == pg[5] == 7
    # the run pages' relevant documents (sql/reports/relevant_ranks.sql, read for many pages at once)
    pages = sorted((tmp_path / "duckdb" / "board_runs").glob("*.html"))
    for page in pages:
        assert relevant_table(page) == relevant_table(tmp_path / "postgres" / "board_runs" / page.name), page.name
    assert len(pages) == 6 and all(len(relevant_table(page)) > 1 for page in pages)


def relevant_table(page):
    """The rows of a run page's table of relevant documents (their ranks in the run and baseline)."""
    import re

    html = page.read_text(encoding="utf-8")
    start = html.index("Relevant documents of query")
    return re.findall(r"<tr>.*?</tr>", html[start:html.index("</table>", start)], flags=re.S)
