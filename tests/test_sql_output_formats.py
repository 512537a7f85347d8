"""`irw sql` into json, jsonl, parquet and arrow: a MAP column stays a map, a value pyarrow cannot
write is one `Error:` line naming its column, and repeated column names lose no value."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from functools import partial

import duckdb
import pyarrow
import pyarrow.parquet
import pytest

import warehouse
from warehouse.errors import OutputError
from warehouse.formats import formatting
from warehouse.formats import table as tables
from warehouse.formats.table import Table

from conftest import write_file


def read(path):
    return pyarrow.parquet.read_table(path) if path.suffix == ".parquet" else pyarrow.ipc.open_file(path).read_all()


def test_runs_parameters_written_as_a_map(seeded_db, irw, tmp_path):
    """`select * from runs` to parquet crashed (an empty struct: no run had --param); with some
    parameters, every run got every key seen ({'fbTerms': None})."""
    for fmt in ("parquet", "arrow"):
        out = tmp_path / f"runs.{fmt}"
        result = irw("sql", "select * from runs", "-f", fmt, "-o", out)
        assert result.exit_code == 0, result.stderr
        assert pyarrow.types.is_map(read(out).schema.field("parameters").type)
    irw("ingest", "run", write_file(tmp_path, "b.run", "q1 Q0 d1 1 2.0 tagB\n"))
    assert irw("edit", "run", "tagA", "--param", "fbTerms=10", "--param", "fbDocs=5").exit_code == 0
    with warehouse.open(seeded_db, read_only=True) as wh:
        stored = dict(wh.sql("select name, parameters from runs").rows)
    assert stored == {"tagA": {"fbTerms": "10", "fbDocs": "5"}, "tagB": {}}
    for fmt in ("parquet", "arrow"):
        out = tmp_path / f"params.{fmt}"
        assert irw("sql", "select name, parameters from runs", "-f", fmt, "-o", out).exit_code == 0
        written = read(out)
        assert pyarrow.types.is_map(written.schema.field("parameters").type)
        back = duckdb.connect().sql("select name, parameters, typeof(parameters) from written").fetchall()
        assert {name: params for name, params, _ in back} == stored
        assert {kind for _, _, kind in back} == {"MAP(VARCHAR, VARCHAR)"}


def test_duckdb_map_types_kept_in_nested_columns(tmp_path):
    """A DuckDB result's MAP, also inside a STRUCT or LIST and with the same keys in every row, is
    written with DuckDB's own Arrow type, and reads back as DuckDB's value."""
    query = ("select 1::BIGINT as n, map(['k'], ['v']) as m, {'x': map([1], [{'y': 2}])} as s, "
             "[map(['a'], [1]), null] as l union all select 2, map(['k'], [null]), null, []")
    from warehouse.engines.duckdb import arrow_types

    con = duckdb.connect()
    table = Table.from_result(con.execute(query))
    table.arrow_types = partial(arrow_types, table.types)  # as irw sql's engine sets them (store/adhoc.py)
    for fmt in ("parquet", "arrow"):
        out = tmp_path / f"nested.{fmt}"
        formatting.write(table, fmt, out)
        arrow = read(out)
        assert pyarrow.types.is_map(arrow.schema.field("m").type)
        assert con.sql("select * from arrow").fetchall() == con.sql(query).fetchall()
        assert con.sql("select typeof(columns(*)) from arrow limit 1").fetchall() == \
            con.sql(f"select typeof(columns(*)) from ({query}) limit 1").fetchall()


def test_a_value_pyarrow_cannot_write_is_one_error_line(seeded_db, irw, tmp_path):
    for fmt in ("parquet", "arrow"):
        out = tmp_path / f"h.{fmt}"
        result = irw("sql", "select 1 as ok, 170141183460469231731687303715884105727::HUGEINT as h", "-f", fmt,
                     "-o", out)
        assert result.exit_code == 1
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: cannot write column 'h' to Arrow: "), result.stderr
        assert "cast it in the query" in lines[0] and "CAST(h AS VARCHAR)" in lines[0]
        assert not out.exists()
    # pyarrow holds an empty struct, but Parquet cannot write it: the column is named too
    with pytest.raises(OutputError, match=r"^cannot write column 'p' to parquet: .*struct.*cast it in the query"):
        formatting.write(Table(["a", "p"], [(1, {"e": {}})]), "parquet", tmp_path / "e.parquet")
    assert not (tmp_path / "e.parquet").exists()


def test_repeated_column_names_lose_no_value(seeded_db, irw, tmp_path):
    query = "select 1 as a, 2 as a, 3 as a_1, 4 as A, 5 as a"
    keys = ["a", "a_1", "a_1_1", "A", "a_2"]
    printed = irw("sql", query, "-f", "json")
    assert printed.exit_code == 0 and json.loads(printed.stdout) == [dict(zip(keys, range(1, 6)))]
    assert [json.loads(line) for line in irw("sql", query, "-f", "jsonl").stdout.splitlines()] == \
        [dict(zip(keys, range(1, 6)))]
    for fmt in ("parquet", "arrow"):
        out = tmp_path / f"dup.{fmt}"
        assert irw("sql", query, "-f", fmt, "-o", out).exit_code == 0
        assert read(out).to_pylist() == [dict(zip(keys, range(1, 6)))]
    # csv, tsv and the text table keep the names as the query gave them
    assert irw("sql", query, "-f", "csv").stdout == "a,a,a_1,A,a\n1,2,3,4,5\n"
    assert irw("sql", query, "-f", "tsv").stdout == "a\ta\ta_1\tA\ta\n1\t2\t3\t4\t5\n"
    assert irw("sql", query).stdout == "a  a  a_1  A  a\n-  -  ---  -  -\n1  2    3  4  5\n"
    # a join's two name columns, and the server's /api/sql (the same json)
    join = "select r.name, s.name from runs r join runs s using (run_id)"
    assert json.loads(irw("sql", join, "-f", "json").stdout) == [{"name": "tagA", "name_1": "tagA"}]
    table = Table(["name", "name"], [("x", "y")])
    assert json.loads(formatting.render(table, "json")) == [{"name": "x", "name_1": "y"}]
    assert table.to_arrow().column_names == ["name", "name_1"]
    assert table.to_polars().columns == ["name", "name_1"]


def test_unique_names_as_duckdb_names_them():
    """DuckDB's rule (CREATE TABLE AS, COPY TO) for repeated names; names compared exactly."""
    con = duckdb.connect()
    pick = random.Random(7)
    for _ in range(200):
        names = [pick.choice(["a", "b", "a_1", "a_2", "a_1_1", "b_1"]) for _ in range(pick.randint(1, 7))]
        select = ", ".join(f'{i} as "{name}"' for i, name in enumerate(names))
        expected = [d[0] for d in con.execute(f"select * from (select {select})").description]
        assert tables.unique_names(names) == expected, names
    assert tables.unique_names(["a", "A"]) == ["a", "A"]  # distinct keys in JSON and Arrow


def test_the_command_writes_a_map_in_its_own_process(seeded_db, tmp_path):
    """`irw` does not import the duckdb package (only its engine, _duckdb, whose connections lack
    the relational API a test process's import adds): written in a process of its own, as users
    run it, the runs' MAP column is a map too."""
    import subprocess
    import sys

    out = tmp_path / "runs.parquet"
    done = subprocess.run([sys.executable, "-m", "warehouse", "sql", "select name, parameters from runs", "-f",
                           "parquet", "-o", str(out), "--db", str(seeded_db)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert pyarrow.types.is_map(read(out).schema.field("parameters").type)


WITHOUT_PYARROW = """
import runpy, sys
sys.modules["pyarrow"] = None  # as in the default install, which has no pyarrow: importing it fails
sys.argv = ["irw", *sys.argv[1:]]
runpy.run_module("warehouse", run_name="__main__")
"""


def test_a_map_column_prints_without_pyarrow(seeded_db, tmp_path):
    """runs.parameters is a MAP: `select * from runs` prints in every text format on the default
    install (no pyarrow); only parquet and arrow need it, and say how to install it. In a process
    of its own, as a user's: the test's process has pyarrow imported already."""
    script = tmp_path / "irw_without_pyarrow.py"
    script.write_text(WITHOUT_PYARROW)

    def irw_sql(*args):
        return subprocess.run([sys.executable, str(script), "sql", "--db", str(seeded_db), *args],
                              capture_output=True, text=True, timeout=120)

    for fmt in ("table", "csv", "tsv", "json", "jsonl"):
        result = irw_sql("select name, parameters from runs order by name", "-f", fmt)
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
        assert result.stdout.strip(), fmt
    result = irw_sql("select parameters from runs", "-f", "parquet", "-o", str(tmp_path / "p.parquet"))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "pip install" in result.stderr and "pyarrow" in result.stderr


def test_tsv_fields_are_never_quoted_and_split_on_tabs_as_written():
    """A tsv field holds no tab nor line break (each is written as an escape), so it needs no
    quoting: a quote is the text's own (csv's quoting wrote a"b as "a""b", which cut and awk show)."""
    table = Table(["name", "note", "value"], [['a"b', "x\ty", 1.5], ['"quoted"', "=1+2", None]])
    text = formatting.render(table, "tsv")
    assert text == 'name\tnote\tvalue\na"b\tx\\ty\t1.5\n"quoted"\t\'=1+2\t\n'
    assert [line.split("\t") for line in text.splitlines()][1] == ['a"b', "x\\ty", "1.5"]
    assert formatting.render(table, "csv").splitlines()[1] == '"a""b",x\\ty,1.5'  # csv quotes as csv does


def test_null_empty_text_nan_and_infinity_are_written_as_docs_sql_says(seeded_db, irw, tmp_path):
    """docs/sql.md: a NULL is an empty cell in csv, as an empty text is; json tells them apart and
    writes NaN and infinities as null (a walk found json's null where the page promised the exact
    text, undocumented)."""
    query = "select cast('nan' as double) as a, cast('inf' as double) as b, null as c, '' as d"
    csv_said = irw("sql", query, "-f", "csv")
    assert (csv_said.exit_code, csv_said.stdout) == (0, "a,b,c,d\nnan,inf,,\n"), csv_said.stderr
    json_said = irw("sql", query, "-f", "json")
    assert json.loads(json_said.stdout) == [{"a": None, "b": None, "c": None, "d": ""}]
    irw("sql", query, "-o", tmp_path / "rows.parquet")
    row = pyarrow.parquet.read_table(tmp_path / "rows.parquet").to_pylist()[0]
    assert str(row["a"]) == "nan" and row["b"] == float("inf") and (row["c"], row["d"]) == (None, "")
