"""`irw sql` and Warehouse.sql: one read-only statement, values bound as parameters, writes refused."""
from __future__ import annotations

import csv
import io
import json

import pytest

import warehouse
from warehouse import QueryError, ReadOnlyError

from conftest import fingerprint_at, warehouse_fingerprint


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
