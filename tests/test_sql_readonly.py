"""`irw sql` and Warehouse.sql: one read-only statement, values bound as parameters, writes refused,
nothing outside the warehouse read or written (DuckDB's sandbox, warehouse/engines/duckdb.py)."""
from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from pathlib import Path

import duckdb
import pytest

import warehouse
from warehouse import IrwError, QueryError, ReadOnlyError

from docs_pages import page
from conftest import RUN_ROWS, fingerprint_at, run_text, warehouse_fingerprint, write_file


@pytest.fixture
def seeded_wh(seeded_db):
    with warehouse.open(seeded_db) as opened:
        yield opened


def test_select_returns_columns_and_rows(seeded_wh):
    table = seeded_wh.sql("select query_id, count(*) as n, max(score) as top from run_rows "
                          "group by query_id order by query_id")
    assert table.columns == ["query_id", "n", "top"]
    assert table.rows == [("q1", 3, 3.5), ("q2", 1, 0.5)]


def test_positional_and_named_parameters_are_bound(seeded_wh):
    assert seeded_wh.sql("select doc_id from run_rows where query_id = ? and score > ? order by doc_id",
                         ["q1", 0]).column("doc_id") == ["d1", "d2"]
    assert seeded_wh.sql("select grade from qrels where doc_id = $doc and query_id = $q",
                         {"doc": "d9", "q": "q2"}).rows == [(-1,)]
    # A bound value is data, never SQL.
    assert seeded_wh.sql("select count(*) from runs where name = ?", ["x' or '1'='1"]).rows == [(0,)]


def test_explain_and_a_trailing_semicolon_are_fine(seeded_wh):
    assert seeded_wh.sql("select count(*) from qrels;").rows == [(4,)]
    plan = seeded_wh.sql("explain select * from run_rows")
    assert len(plan) >= 1 and "RUN_ROWS" in str(plan.rows).upper()


WRITES = {
    "insert": "insert into runs (name, sha256, row_count, query_count) values ('x', 'y', 0, 0)",
    "update": "update run_rows set score = 0",
    "delete": "delete from run_rows",
    "drop": "drop table qrels",
    "create": "create table notes (x integer)",
    "create view": "create view v as select 1",
    "alter": "alter table runs add column extra integer",
    "copy": "copy run_rows to '{tmp}/leak.csv'",
    "attach": "attach '{tmp}/other.duckdb' as other",
    "checkpoint": "checkpoint",
    "set": "set threads = 1",
    "pragma": "pragma enable_profiling",
    "delete in a CTE": "with gone as (delete from run_rows returning *) select count(*) from gone",
    "insert in a CTE": "with added as (insert into qrels values (1, 'q', 'd', 1) returning *) select * from added",
    "explain analyze delete": "explain analyze delete from run_rows",
    "nextval": "select nextval('run_id_seq')",
    "two statements": "select 1; drop table qrels",
    # a security walk: checkpoint() answered Success where CHECKPOINT is refused, duckdb_secrets()
    # named the server account's home folder
    "checkpoint()": "select * from checkpoint()",
    "force_checkpoint()": "select * from force_checkpoint()",
    "duckdb_secrets()": "select * from duckdb_secrets()",
}


@pytest.mark.parametrize("case", WRITES, ids=list(WRITES))
def test_writes_are_refused_through_the_api_and_change_nothing(case, seeded_wh, tmp_path):
    before = warehouse_fingerprint(seeded_wh)
    with pytest.raises((ReadOnlyError, QueryError)) as caught:
        seeded_wh.sql(WRITES[case].format(tmp=tmp_path))
    message = str(caught.value)
    assert "read-only" in message or "one SQL statement" in message, message
    assert warehouse_fingerprint(seeded_wh) == before
    assert not (tmp_path / "leak.csv").exists()
    assert not (tmp_path / "other.duckdb").exists()


@pytest.mark.parametrize("case", ["insert", "delete", "drop", "copy", "create", "delete in a CTE"])
def test_writes_are_refused_by_the_cli(case, seeded_db, tmp_path, irw):
    before = fingerprint_at(seeded_db)
    result = irw("sql", WRITES[case].format(tmp=tmp_path))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("Error: irw sql is read-only: "), result.stderr
    assert "irw ingest" in result.stderr  # says how to change the warehouse instead
    assert fingerprint_at(seeded_db) == before
    assert not (tmp_path / "leak.csv").exists()


def test_cli_reads_sql_from_stdin(seeded_db, irw):
    result = irw("sql", "-", "--format", "csv",
                 input="select query_id, count(*) as docs\nfrom run_rows\ngroup by query_id\norder by 1\n")
    assert result.exit_code == 0, result.stderr
    assert list(csv.reader(io.StringIO(result.stdout))) == [["query_id", "docs"], ["q1", "3"], ["q2", "1"]]


def test_cli_json_output_parses(seeded_db, irw):
    result = irw("sql", "select name, tag, row_count, parameters, ingested_at from runs", "--format", "json")
    assert result.exit_code == 0, result.stderr
    (row,) = json.loads(result.stdout)
    assert (row["name"], row["tag"], row["row_count"], row["parameters"]) == ("tagA", "tagA", 4, {})
    assert row["ingested_at"][:2] == "20"


def test_cli_json_handles_every_duckdb_value_type(seeded_db, irw):
    query = ("select 'ab'::blob as b, interval 90 minutes as i, time '10:30:00' as t, date '2026-01-02' as d, "
             "1.50::decimal(5, 2) as n, 'nan'::double as x, [1, 2] as l, {'k': 'v'} as s, "
             "'00000000-0000-0000-0000-000000000001'::uuid as u, 12345678901234567890::hugeint as h")
    result = irw("sql", query, "--format", "json")
    assert result.exit_code == 0, result.stderr
    (row,) = json.loads(result.stdout)
    assert row["d"] == "2026-01-02" and row["t"] == "10:30:00"
    assert row["n"] == 1.5 and row["x"] is None and row["l"] == [1, 2] and row["s"] == {"k": "v"}
    assert row["u"] == "00000000-0000-0000-0000-000000000001"
    assert row["h"] == 12345678901234567890
    assert row["b"] == "ab" and row["i"] == "1:30:00"


def test_cli_tsv_and_table_output(seeded_db, irw):
    tsv = irw("sql", "select doc_id, score from run_rows where query_id = 'q1' order by score desc",
              "--format", "tsv")
    assert tsv.stdout.splitlines() == ["doc_id\tscore", "d1\t3.5", "d2\t2.25", "d3\t-1.0"]
    table = irw("sql", "select doc_id, score from run_rows where query_id = 'q1' order by score desc")
    assert table.stdout.splitlines() == ["doc_id    score", "------  -------", "d1       3.5000",
                                         "d2       2.2500", "d3      -1.0000"]


def test_sql_errors_are_reported_not_raised(seeded_db, irw):
    result = irw("sql", "select * from no_such_table")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: Catalog Error: Table with name no_such_table does not exist")
    empty = irw("sql", "  ")
    assert empty.exit_code == 1 and "expected one SQL statement, found 0" in empty.stderr


# -- escapes: every way out the campaign tried, and a few more ----------------------------------
# {tmp} is the test's folder (targets that must not appear, a secret that must not be read).
SECRET = "irw-secret-7f3a"
ESCAPES = {
    "explain (analyze) copy to a file": "explain (analyze) copy (select 'x') to '{tmp}/x.csv'",
    "explain comment analyze copy": "explain /* */ analyze copy runs to '{tmp}/y.csv'",
    "explain with options copy": "explain (format json, analyze) copy runs to '{tmp}/z.csv'",
    "explain -- comment analyze copy": "explain -- note\nanalyze copy runs to '{tmp}/w.csv'",
    "explain (analyze) install from a URL": "explain (analyze) install httpfs from 'http://127.0.0.1:9/'",
    "install": "install httpfs",
    "load": "load httpfs",
    "update extensions": "update extensions",
    "read_text of a local file": "select * from read_text('{tmp}/secret.txt')",
    "read_text of /etc/shadow": "select * from read_text('/etc/shadow')",
    "read_csv": "select * from read_csv('{tmp}/secret.txt')",
    "read_blob": "select * from read_blob('{tmp}/secret.txt')",
    "a file path as a table": "select * from '{tmp}/secret.csv'",
    "glob": "select * from glob('/**')",
    "/proc/self/environ": "select * from read_text('/proc/self/environ')",
    "sniff_csv": "from sniff_csv('{tmp}/secret.txt')",
    "a URL": "select * from read_parquet('http://127.0.0.1:9/x.parquet')",
    "reading in a CTE": "with t as (select * from read_text('{tmp}/secret.txt')) select content from t",
    "reading in a PIVOT": "pivot (select * from read_text('{tmp}/secret.txt')) on filename using count(*)",
    "explain analyze of a read": "explain analyze select * from read_text('{tmp}/secret.txt')",
    "copy to": "copy run_rows to '{tmp}/leak.csv'",
    "copy from a query": "copy (select 1) to '{tmp}/leak.csv'",
    "export database": "export database '{tmp}/export'",
    "attach": "attach '{tmp}/other.duckdb' as other",
    "set external access": "set enable_external_access = true",
    "reset the lock": "reset lock_configuration",
    "unlock": "set lock_configuration = false",
    "secrets": "create secret (type s3, key_id 'k', secret 's')",
    "checkpoint": "checkpoint",
    "an EXPLAIN DuckDB cannot parse": "explain (analyze copy runs to '{tmp}/v.csv'",
    "explain of two statements": "explain select 1; copy runs to '{tmp}/u.csv'",
}
TARGETS = ["x.csv", "y.csv", "z.csv", "w.csv", "v.csv", "u.csv", "leak.csv", "export", "other.duckdb"]


@pytest.fixture
def bait(tmp_path):
    (tmp_path / "secret.txt").write_text(f"{SECRET}\n")
    (tmp_path / "secret.csv").write_text(f"a\n{SECRET}\n")
    return tmp_path


def assert_nothing_escaped(folder: Path, output: str = "") -> None:
    assert [t for t in TARGETS if (folder / t).exists()] == []
    assert SECRET not in output


@pytest.mark.parametrize("case", ESCAPES, ids=list(ESCAPES))
def test_escapes_are_refused_through_argv(case, seeded_db, bait, irw):
    before = fingerprint_at(seeded_db)
    result = irw("sql", ESCAPES[case].format(tmp=bait))
    assert result.exit_code == 1, result.stdout
    assert result.stdout == ""
    assert result.stderr.startswith("Error: "), result.stderr
    assert "Error: \n" not in result.stderr and "Traceback" not in result.stderr
    assert_nothing_escaped(bait, result.stderr)
    assert fingerprint_at(seeded_db) == before


@pytest.mark.parametrize("case", ESCAPES, ids=list(ESCAPES))
def test_escapes_are_refused_through_stdin(case, seeded_db, bait, irw):
    before = fingerprint_at(seeded_db)
    result = irw("sql", "-", input=ESCAPES[case].format(tmp=bait) + "\n")
    assert result.exit_code == 1, result.stdout
    assert result.stdout == ""
    assert result.stderr.startswith("Error: "), result.stderr
    assert "Traceback" not in result.stderr
    assert_nothing_escaped(bait, result.stderr)
    assert fingerprint_at(seeded_db) == before


@pytest.mark.parametrize("read_only", [False, True], ids=["open for writing", "read-only"])
@pytest.mark.parametrize("case", ESCAPES, ids=list(ESCAPES))
def test_escapes_are_refused_through_the_api(case, read_only, seeded_db, bait):
    with warehouse.open(seeded_db, read_only=read_only) as wh:
        before = warehouse_fingerprint(wh)
        with pytest.raises((ReadOnlyError, QueryError)) as caught:
            wh.sql(ESCAPES[case].format(tmp=bait))
        assert_nothing_escaped(bait, str(caught.value))
        assert warehouse_fingerprint(wh) == before  # and the full-access connection is back


@pytest.mark.parametrize("case", ["read_text of a local file", "explain (analyze) copy to a file", "copy to",
                                  "attach", "set external access", "a file path as a table"])
def test_escapes_are_refused_on_an_in_memory_warehouse(case, bait):
    with warehouse.open(":memory:") as wh:
        wh.ingest_run(write_file(bait, "r.txt", run_text(RUN_ROWS)))
        with pytest.raises((ReadOnlyError, QueryError)) as caught:
            wh.sql(ESCAPES[case].format(tmp=bait))
        assert_nothing_escaped(bait, str(caught.value))
        assert wh.sql("select count(*) from run_rows").rows == [(4,)]


# What DuckDB refuses by itself, with no statement check in front: the sandbox connection alone.
DUCKDB_ENFORCED = ["explain (analyze) copy to a file", "explain comment analyze copy", "explain with options copy",
                   "explain (analyze) install from a URL", "install", "load", "update extensions",
                   "read_text of a local file", "read_text of /etc/shadow", "read_csv", "read_blob", "glob",
                   "/proc/self/environ", "sniff_csv", "a URL", "reading in a CTE", "reading in a PIVOT",
                   "explain analyze of a read", "copy to", "copy from a query", "export database", "attach",
                   "set external access", "reset the lock", "unlock", "secrets"]


@pytest.mark.parametrize("case", DUCKDB_ENFORCED)
def test_duckdb_itself_refuses_what_the_checks_refuse(case, seeded_db, bait):
    with warehouse.open(seeded_db) as wh:
        before = warehouse_fingerprint(wh)
        with wh.db.sandbox() as con:
            with pytest.raises(duckdb.Error) as caught:
                con.execute(ESCAPES[case].format(tmp=bait)).fetchall()
            assert con.execute("select current_setting('enable_external_access'), "
                               "current_setting('lock_configuration')").fetchone() == (False, True)
        assert_nothing_escaped(bait, str(caught.value))
        assert warehouse_fingerprint(wh) == before


def test_the_sandbox_cannot_write_the_warehouse_even_unchecked(seeded_db):
    with warehouse.open(seeded_db) as wh:
        before = warehouse_fingerprint(wh)
        with wh.db.sandbox() as con:
            for statement in ("delete from run_rows", "insert into qrels values (1, 'q', 'd', 1)",
                              "select nextval('run_id_seq')", "drop table qrels"):
                with pytest.raises(duckdb.Error, match="read-only"):
                    con.execute(statement)
        assert warehouse_fingerprint(wh) == before


def test_the_cli_opens_only_the_sandbox(seeded_db, irw):
    result = irw("sql", "select current_setting('enable_external_access') as external, "
                        "current_setting('autoload_known_extensions') as autoload, "
                        "current_setting('autoinstall_known_extensions') as autoinstall, "
                        "current_setting('lock_configuration') as locked, "
                        "current_setting('access_mode') as access", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == [{"external": False, "autoload": False, "autoinstall": False,
                                          "locked": True, "access": "read_only"}]


# -- ordinary reads still work -----------------------------------------------------------------

@pytest.fixture
def evaluated_db(seeded_db):
    """seeded_db with AP and P@5 stored: by hand, AP is 1.0 on both queries (each one's only
    relevant document is ranked first) and P@5 is 1/5 on both."""
    with warehouse.open(seeded_db) as wh:
        wh.evaluate("tagA", "base", ["AP", "P@5"])
    return seeded_db


READS = {
    "run_summary": ("select measure, value, queries from run_summary where run = 'tagA' order by measure",
                    [["AP", 1.0, 2], ["P@5", 0.2, 2]]),
    "score_values": ("select query, value from score_values where measure = 'AP' and level = 1 order by query",
                     [["q1", 1.0], ["q2", 1.0]]),
    "a join": ("select r.query_id, count(*) from run_rows as r join qrels as q using (query_id, doc_id) "
               "where q.grade >= 1 group by r.query_id order by 1", [["q1", 1], ["q2", 1]]),
    "irw_schema": ("select count(*) = (select max(version) from irw_schema) from irw_schema", [[True]]),
    "PIVOT": ("pivot (select query, measure, value from score_values) on measure using max(value) order by query",
              [["q1", 1.0, 0.2], ["q2", 1.0, 0.2]]),
    "PIVOT in a SELECT": ("select count(*) from (pivot score_values on measure using avg(value) group by run)",
                          [[1]]),
    "FROM first": ("from runs select name", [["tagA"]]),
    "a CTE": ("with q as (select distinct query_id from run_rows) select count(*) from q", [[2]]),
}


@pytest.mark.parametrize("case", READS, ids=list(READS))
@pytest.mark.parametrize("via", ["argv", "stdin", "api", "api read-only"])
def test_ordinary_reads_work(case, via, evaluated_db, irw):
    query, expected = READS[case]
    if via.startswith("api"):
        with warehouse.open(evaluated_db, read_only=via == "api read-only") as wh:
            rows = [list(row) for row in wh.sql(query).rows]
    else:
        result = irw("sql", *(["-"] if via == "stdin" else [query]), "--format", "json",
                     input=query if via == "stdin" else None)
        assert result.exit_code == 0, result.stderr
        rows = [list(row.values()) for row in json.loads(result.stdout)]
    assert len(rows) == len(expected)
    for row, want in zip(rows, expected):
        assert [round(v, 12) if isinstance(v, float) else v for v in row] == want


def test_explain_and_describe_and_show_read(evaluated_db, irw):
    for query in ("explain select * from runs", "explain analyze select count(*) from run_rows",
                  "describe runs", "show tables", "summarize run_rows"):
        result = irw("sql", query)
        assert result.exit_code == 0, (query, result.stderr)
        assert result.stdout.strip(), query


def test_the_readme_parameter_example_runs_as_printed(tmp_path):
    readme = page("sql")  # docs/sql.md, "Tables you can query"
    example = 'wh.sql("select * from runs where name = ?", ["bm25"])'
    assert example in readme
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        wh.ingest_run(write_file(tmp_path, "r.txt", run_text(RUN_ROWS, tag="bm25")))
        table = eval(example, {"wh": wh})  # the README's text, literally
        assert table.column("name") == ["bm25"]


# -- the API between reads and writes ---------------------------------------------------------

def test_sql_and_writes_alternate_on_one_warehouse(wh, tmp_path):
    """Warehouse.sql swaps the writing connection for the sandbox; the next write swaps it back."""
    for i in range(3):
        wh.ingest_run(write_file(tmp_path, f"r{i}.txt", run_text(RUN_ROWS, tag=f"t{i}")))
        assert wh.sql("select count(*) from runs").rows == [(i + 1,)]
    assert wh.sql("select count(*) from run_rows").rows == [(12,)]
    wh.remove_run("t0")
    assert sorted(wh.sql("select name from runs").column("name")) == ["t1", "t2"]


@pytest.mark.filterwarnings("ignore:duckdb-engine doesn't yet support reflection on indices")
def test_the_engine_keeps_working_after_sql(wh, tmp_path):
    import sqlalchemy as sa

    wh.ingest_run(write_file(tmp_path, "r.txt", run_text(RUN_ROWS)))
    with wh.engine.connect() as connection:
        assert connection.execute(sa.text("select count(*) from run_rows")).scalar() == 4
    assert wh.sql("select count(*) from run_rows").rows == [(4,)]
    with wh.engine.connect() as connection:  # the pool let go of the old connection
        assert connection.execute(sa.text("select count(*) from runs")).scalar() == 1


def test_the_engine_docstring_says_it_is_full_access():
    assert "FULL-ACCESS" in warehouse.Warehouse.engine.__doc__
    assert "not a read-only" in warehouse.Warehouse.engine.__doc__


def test_sql_inside_an_open_transaction_is_refused_not_rolled_back(wh, tmp_path):
    wh.db.execute("begin transaction")
    wh.db.execute("insert into irw_schema (version, name) values (999, 'x')")
    with pytest.raises(QueryError, match="commit or roll back first"):
        wh.sql("select 1")
    wh.db.execute("rollback")
    assert wh.sql("select count(*) from irw_schema where version = 999").rows == [(0,)]


MISUSE = {
    "None": (None, None),
    "bytes": (b"select 1", None),
    "a number": (42, None),
    "params as a string": ("select ?", "x"),
    "params as a set": ("select ?", {1}),
    "a value DuckDB cannot bind": ("select ?", [object()]),
    "too few params": ("select ?, ?", [1]),
    "named params with a list": ("select $a", [1]),
    "not UTF-8": ("select '\udcff'", None),
}


@pytest.mark.parametrize("case", MISUSE, ids=list(MISUSE))
def test_misuse_of_sql_raises_an_irw_error(case, seeded_wh):
    query, params = MISUSE[case]
    with pytest.raises(IrwError) as caught:
        seeded_wh.sql(query, params)
    assert str(caught.value).strip()


def test_sql_after_close_raises_an_irw_error(seeded_db):
    wh = warehouse.open(seeded_db)
    wh.close()
    with pytest.raises(warehouse.WarehouseClosed, match="closed"):
        wh.sql("select 1")
    with pytest.raises(warehouse.WarehouseClosed):
        wh.runs()


# -- statement checks ----------------------------------------------------------------------------

def test_an_unknown_statement_type_is_a_clear_refusal(seeded_db, irw):
    result = irw("sql", "update extensions")
    assert result.exit_code == 1
    assert result.stderr == ("Error: irw sql is read-only: `update extensions` is not a query irw sql runs "
                             "(use irw ingest / irw rm to change the warehouse)\n")


@pytest.mark.parametrize("text", ["explain (analyze) copy (select 'x') to", "explain analyze copy runs to",
                                  "explain /* */ analyze", "explain (analyze", "explain"])
def test_an_explain_whose_statement_cannot_be_parsed_is_refused_not_passed(text, seeded_wh):
    """The old check stripped EXPLAIN with a regex and let an unparsable rest through."""
    from types import SimpleNamespace

    from warehouse.store import adhoc

    statement = SimpleNamespace(type=duckdb.StatementType.EXPLAIN, query=text)
    with seeded_wh.db.sandbox() as con:
        assert "EXPLAIN wraps" in adhoc.refusal(con, statement)


@pytest.mark.parametrize("text, inner", [
    ("explain (analyze) copy (select 'x') to '/t/x.csv'", "copy (select 'x') to '/t/x.csv'"),
    ("explain /* c */ analyze -- c\n copy runs to 'y'", "copy runs to 'y'"),
    ("EXPLAIN (FORMAT json, ANALYZE) select 1", "select 1"),
    ("explain (select 1)", "(select 1)"),
    ("explain ((select 1)) ;", "((select 1)) ;"),
    ("explain analyse select 2", "select 2"),
])
def test_the_statement_an_explain_wraps_is_found_past_comments_and_options(text, inner):
    from warehouse.store import adhoc

    assert adhoc._explained(text) == inner


# -- error messages (issue 10) ---------------------------------------------------------------------

def test_a_sql_error_is_printed_once_without_empty_lines(seeded_db, irw):
    result = irw("sql", "select nme from runs")
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0] == 'Error: Binder Error: Referenced column "nme" not found in FROM clause!'
    assert all(line.startswith("Error: ") and line.strip() != "Error:" for line in lines)
    assert sum("Referenced column" in line for line in lines) == 1


def test_catalogue_hints_become_the_warehouse_tables_and_views(seeded_db, irw):
    with warehouse.open(seeded_db, read_only=True) as wh:
        rows = wh.db.fetchall("select table_name, table_type from information_schema.tables "
                              "where table_schema = 'main' order by 1")
    tables = [name for name, kind in rows if kind != "VIEW"]
    views = [name for name, kind in rows if kind == "VIEW"]
    listing = f"Error: the warehouse has tables: {', '.join(tables)}; views: {', '.join(views)}"
    assert "runs" in tables and "run_summary" in views

    unrelated = irw("sql", "select * from tbl")  # DuckDB would suggest "pg_tablespace"
    assert unrelated.exit_code == 1
    assert unrelated.stderr.splitlines()[:2] == ["Error: Catalog Error: Table with name tbl does not exist!", listing]
    assert "pg_" not in unrelated.stderr

    near = irw("sql", "select * from run")  # a suggestion that is one of ours stays
    assert near.stderr.splitlines()[:3] == ["Error: Catalog Error: Table with name run does not exist!",
                                            'Error: Did you mean "runs"?', listing]


@pytest.mark.parametrize("via", ["argv", "stdin"])
def test_sql_that_is_not_utf8_is_an_error_line(via, seeded_db):
    """Bytes that are not UTF-8 reach Python as lone surrogates (argv) or fail to decode (stdin)."""
    import subprocess
    import sys

    text = b"select '\xff'"
    argv = [sys.executable, "-m", "warehouse", "sql", "--db", str(seeded_db)]
    if via == "argv":
        result = subprocess.run([*argv, text], capture_output=True)
    else:
        result = subprocess.run([*argv, "-"], input=text, capture_output=True)
    stderr = result.stderr.decode("utf-8", "replace")
    assert result.returncode in (1, 2), stderr
    assert stderr.startswith("Error: ") and "UTF-8" in stderr and "Traceback" not in stderr, stderr


def test_other_hints_from_duckdb_stay(seeded_db, irw):
    result = irw("sql", "select * from rnge(3)")  # a table function, not a table: DuckDB's hint is right
    assert result.stderr.splitlines()[:2] == ["Error: Catalog Error: Table Function with name rnge does not exist!",
                                              'Error: Did you mean "range"?']


@pytest.mark.parametrize("argv", [
    ["sql", "-- the runs\nselect count(*) as n from runs", "-f", "csv"],
    ["sql", "-f", "csv", "--the runs\nselect count(*) as n from runs"],
    ["sql", "-f", "csv", "--", "-- the runs\nselect count(*) as n from runs"],
])
def test_a_query_opening_with_a_comment_is_the_query_not_an_option(argv, seeded_db, irw):
    """A walk's `irw sql '-- note\nselect 1'` was Click's "No such option: -- note ...": an option's
    name holds no whitespace, so what does is SQL, wherever the options stand."""
    # the options before a --, as a user types them (the fixture puts --db last)
    said = irw(*argv[:-2], "--db", irw.db, *argv[-2:], db=False) if "--" in argv else irw(*argv)
    assert (said.exit_code, said.stdout, said.stderr) == (0, "n\n1\n", ""), said.stderr
    assert "No such option: --nope" in irw("sql", "--nope").stderr  # an option's name is still one


@pytest.mark.parametrize("query, kept", [
    ("select 100000 // (50000 - range) as x from range(100000)",
     "Error: Invalid Input Error: Division by zero in expression (100000 // (50000 - range)). Use TRY(...) to "
     "return NULL for this expression."),
    ("select " + " + ".join(["1"] * 2000), "Error: Parser Error: Max expression depth limit of 1000 exceeded."),
])
def test_duckdb_s_advice_to_run_a_set_is_not_passed_on(query, kept, seeded_db, irw):
    """A walk was told `or SET error_on_division_by_zero=false` and `Use "SET max_expression_depth TO x"`,
    which irw sql then refused: DuckDB's other advice stays, and the message says SET is refused."""
    said = irw("sql", query)
    assert said.exit_code == 1
    assert said.stderr.splitlines() == [kept, "Error: (irw sql refuses SET, so the setting stays as it is: "
                                              "change the query instead)"], said.stderr
    with warehouse.open(seeded_db, read_only=True) as wh, pytest.raises(QueryError) as raised:
        wh.sql(query)
    assert "SET" not in str(raised.value).replace("wh.sql refuses SET", ""), str(raised.value)



def test_out_of_memory_names_irw_s_limit_not_a_set(seeded_db, irw, monkeypatch):
    """A walk was told DuckDB's "Possible solutions": SET threads, preserve_insertion_order and
    memory_limit, which the sandbox refuses; IRW_MEMORY_LIMIT is what changes it."""
    monkeypatch.setenv("IRW_MEMORY_LIMIT", "200MB")
    said = irw("sql", "select length(string_agg(repeat('x', 1000000), '')) from range(3000)")
    assert said.exit_code == 1 and said.stderr.startswith("Error: Out of Memory Error: failed to allocate "), said.stderr
    assert said.stderr.splitlines()[1:] == [
        "Error: irw lets DuckDB use 200MB (IRW_MEMORY_LIMIT, default 4GiB, or half the machine's memory if less): "
        "narrow the query, or run it with a larger IRW_MEMORY_LIMIT (IRW_MEMORY_LIMIT=8GiB irw sql ...)"], said.stderr

def test_the_sandbox_keeps_irw_s_memory_and_spill_limits(tmp_path, monkeypatch):
    """A user's query ran at DuckDB's own memory limit (80% of the machine), not IRW_MEMORY_LIMIT:
    two served requests of repeat() took irw serve to 7.7 GB."""
    monkeypatch.setenv("IRW_MEMORY_LIMIT", "500MB")
    monkeypatch.setenv("IRW_TEMP_LIMIT", "1GB")
    with warehouse.open(tmp_path / "w.duckdb") as wh:
        wh.sql("select 1")  # a file the sandbox opens
        limits = wh.sql("select current_setting('memory_limit'), current_setting('max_temp_directory_size')").rows
    assert limits == [("476.8 MiB", "953.6 MiB")]
    with warehouse.open(":memory:") as wh:
        assert wh.sql("select current_setting('memory_limit')").rows == [("476.8 MiB",)]
