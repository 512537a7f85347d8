"""`irw sql --format parquet|arrow|jsonl`: results that go on into other tools keep every value."""
from __future__ import annotations

import json
import sys

import pyarrow
import pyarrow.parquet
import pytest

import warehouse

QUERY = "select run_id, query_id, doc_id, score, trec_rank from run_rows order by all"


def test_parquet_arrow_and_jsonl_keep_every_value(seeded_db, irw, tmp_path):
    with warehouse.open(seeded_db, read_only=True) as wh:
        expected = wh.sql(QUERY)
    assert len(expected) > 0
    for fmt in ("parquet", "arrow"):
        out = tmp_path / f"rows.{fmt}"
        result = irw("sql", QUERY, "--format", fmt, "-o", out)
        assert result.exit_code == 0, result.stderr
        assert result.stderr == f"wrote {len(expected)} rows to {out}\n"
        table = pyarrow.parquet.read_table(out) if fmt == "parquet" else pyarrow.ipc.open_file(out).read_all()
        assert table.column_names == expected.columns
        assert [tuple(row.values()) for row in table.to_pylist()] == expected.rows
    lines = irw("sql", QUERY, "--format", "jsonl").stdout.splitlines()
    assert [tuple(json.loads(line).values()) for line in lines] == expected.rows


def test_binary_formats_need_a_file_and_pyarrow(seeded_db, irw, tmp_path, monkeypatch):
    refused = irw("sql", QUERY, "--format", "parquet")
    assert refused.exit_code == 2 and "--format parquet writes a file: name it with -o FILE" in refused.stderr
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    missing = irw("sql", QUERY, "--format", "arrow", "-o", tmp_path / "x.arrow")
    assert missing.exit_code == 1
    assert "-m pip install -e" in missing.stderr and "[arrow]'" in missing.stderr
    assert not (tmp_path / "x.arrow").exists() and not list(tmp_path.glob(".x.arrow*"))


def test_dash_is_stdout_as_for_the_reports(seeded_db, irw, tmp_path, monkeypatch):
    """`-o -` printed nothing and wrote a file named - in the current folder ("wrote 4 rows to -"),
    where `irw report ... -o -` prints the page."""
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    printed = irw("sql", QUERY, "--format", "csv")
    dashed = irw("sql", QUERY, "--format", "csv", "-o", "-")
    assert dashed.exit_code == 0 and dashed.stdout == printed.stdout and dashed.stderr == ""
    refused = irw("sql", QUERY, "--format", "parquet", "-o", "-")
    assert refused.exit_code == 2 and "--format parquet writes a file: name it with -o FILE" in refused.stderr
    assert list(here.iterdir()) == []


@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_no_rows_is_said_on_stderr_and_exits_1_the_output_unchanged(seeded_db, irw, fmt):
    """A query that matched nothing printed a header (or []) and nothing else: a misspelt filter
    looked like an answer. stdout stays what the format writes for no rows; the exit status is 1,
    as grep's when no line matches."""
    result = irw("sql", "select name from runs where name = 'no such run'", "-f", fmt)
    assert result.exit_code == 1
    assert result.stderr == "# the query returned no rows\n"
    assert irw("sql", "select name from runs", "-f", fmt).stderr == ""


def test_no_rows_written_to_a_file_keep_their_schema_and_exit_1(seeded_db, irw, tmp_path):
    """`-o FILE` of an empty result wrote the file and exited 0, where the same query printed
    exits 1: the file keeps every column, typed; the exit status says it holds no row."""
    out = tmp_path / "none.parquet"
    result = irw("sql", QUERY.replace("order by all", "where false"), "--format", "parquet", "-o", out)
    assert result.exit_code == 1
    assert result.stderr == f"wrote 0 rows to {out}\n# the query returned no rows\n"
    table = pyarrow.parquet.read_table(out)
    assert table.num_rows == 0 and table.column_names == ["run_id", "query_id", "doc_id", "score", "trec_rank"]
