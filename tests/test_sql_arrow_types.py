"""`irw sql --format parquet|arrow` (and a result's to_arrow()) types every column by its SQL type,
also a column whose values are all NULL and every column of an empty result: these were Arrow's
`null` type (`depth: null`, `numerator: null` of score_values, `x: null` of `select 1 as x where
false`), an object column in pandas, Null in polars, and two exports did not concatenate. Run on DL19
(its qrels and BM25 run, evaluated with AP and P@10), in a DuckDB file and, where IRW_TEST_POSTGRES is
set, in PostgreSQL."""
from __future__ import annotations

from pathlib import Path

import pyarrow
import pyarrow.ipc
import pyarrow.parquet
import pytest

import warehouse

from conftest import Cli

FORMATS = ("parquet", "arrow")


def read(path: Path) -> pyarrow.Table:
    return pyarrow.parquet.read_table(path) if path.suffix == ".parquet" else pyarrow.ipc.open_file(path).read_all()


def dl19(irw: Cli, conformance: Path) -> None:
    """DL19's qrels and BM25 run ingested and evaluated, as a user does first."""
    folder = conformance / "dl19-passage"
    for args in (("ingest", "qrels", folder / "qrels.dl19-passage.txt"),
                 ("ingest", "run", folder / "runs" / "run.dl19.BM25.txt"),
                 ("eval", "-m", "AP", "-m", "P@10")):
        result = irw(*args)
        assert result.exit_code == 0, result.stderr


def written(irw: Cli, query: str, path: Path) -> pyarrow.Table:
    """The file `irw sql -o` wrote; a query of no rows writes it too, and exits 1 saying so."""
    result = irw("sql", query, "--format", path.suffix[1:], "-o", path)
    table = read(path)
    if table.num_rows:
        assert result.exit_code == 0, result.stderr
    else:
        assert (result.exit_code, result.stderr) == (1, f"wrote 0 rows to {path}\n# the query returned no rows\n")
    return table


@pytest.fixture(scope="module")
def dl19_duckdb(conformance, tmp_path_factory) -> Cli:
    irw = Cli(tmp_path_factory.mktemp("dl19") / "wh.duckdb")
    dl19(irw, conformance)
    return irw


# score_values's columns, as DuckDB types them; depth, numerator and denominator are NULL for AP and P@10
SCORE_VALUES = {"run": pyarrow.string(), "qrels": pyarrow.string(), "query": pyarrow.string(),
                "measure": pyarrow.string(), "value": pyarrow.float64(), "level": pyarrow.int32(),
                "depth": pyarrow.int64(), "judged_only": pyarrow.bool_(), "complete": pyarrow.bool_(),
                "compat": pyarrow.int32(), "norel": pyarrow.string(), "settings": pyarrow.string(),
                "numerator": pyarrow.float64(), "denominator": pyarrow.float64(),
                "evaluation_id": pyarrow.int32(), "run_id": pyarrow.int32()}


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_all_null_column_keeps_its_sql_type_in_parquet(dl19_duckdb, tmp_path, fmt):
    out = written(dl19_duckdb, "select * from score_values limit 5", tmp_path / f"scores.{fmt}")
    assert out.num_rows == 5
    assert out.column("depth").null_count == out.column("numerator").null_count == 5  # the case at hand
    assert {f.name: f.type for f in out.schema} == SCORE_VALUES
    frame = out.to_pandas()
    assert str(frame["numerator"].dtype) == "float64" and str(frame["value"].dtype) == "float64"


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_empty_result_keeps_its_sql_types(dl19_duckdb, tmp_path, fmt):
    out = written(dl19_duckdb, "select 1 as x where false", tmp_path / f"x.{fmt}")
    assert out.num_rows == 0
    assert out.schema.field("x").type == pyarrow.int32()
    out = written(dl19_duckdb, "select * from score_values where false", tmp_path / f"none.{fmt}")
    assert out.num_rows == 0
    assert {f.name: f.type for f in out.schema} == SCORE_VALUES


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_sql_type_of_an_empty_result_is_its_arrow_type(dl19_duckdb, tmp_path, fmt):
    query = ("select 1::tinyint i8, 1::smallint i16, 1::integer i32, 1::bigint i64, 1.5::real f32, "
             "1.5::double f64, 1.5::decimal(10, 2) dec, 'a' txt, true b, date '2020-01-02' d, "
             "timestamp '2020-01-02 03:04:05' ts, timestamptz '2020-01-02 03:04:05+00' tstz, "
             "time '03:04:05' t, interval 3 day iv, 'x'::blob bin, sum(1) total")
    expected = {"i8": pyarrow.int8(), "i16": pyarrow.int16(), "i32": pyarrow.int32(), "i64": pyarrow.int64(),
                "f32": pyarrow.float32(), "f64": pyarrow.float64(), "dec": pyarrow.decimal128(10, 2),
                "txt": pyarrow.string(), "b": pyarrow.bool_(), "d": pyarrow.date32(),
                "ts": pyarrow.timestamp("us"), "tstz": pyarrow.timestamp("us", tz="UTC"), "t": pyarrow.time64("us"),
                "iv": pyarrow.duration("us"), "bin": pyarrow.binary(), "total": pyarrow.int64()}
    empty = written(dl19_duckdb, f"{query} having false", tmp_path / f"empty.{fmt}")
    assert empty.num_rows == 0
    assert {f.name: f.type for f in empty.schema} == expected
    full = written(dl19_duckdb, query, tmp_path / f"full.{fmt}")
    # the same query with values: the same types (a decimal's are its values': decimal128(3, 2))
    assert {f.name: f.type for f in full.schema} == {**expected, "dec": pyarrow.decimal128(3, 2)}


def test_runs_description_is_text_in_parquet(dl19_duckdb, tmp_path):
    out = written(dl19_duckdb, "select * from runs", tmp_path / "runs.parquet")
    assert out.column("description").null_count == out.num_rows == 1
    assert out.schema.field("description").type == pyarrow.string()
    assert out.schema.field("file_created_at").type == pyarrow.timestamp("us")
    assert pyarrow.types.is_map(out.schema.field("parameters").type)


def test_an_empty_export_concatenates_with_a_full_one(dl19_duckdb, tmp_path):
    """The point for a data-frame user: two exports of one query have one schema."""
    query = "select * from score_values where measure = 'AP' and query = '{}'"
    full = written(dl19_duckdb, query.format("1037798"), tmp_path / "full.parquet")
    empty = written(dl19_duckdb, query.format("no such query"), tmp_path / "empty.parquet")
    assert full.num_rows == 1 and empty.num_rows == 0
    assert full.schema == empty.schema
    assert pyarrow.concat_tables([full, empty]).num_rows == 1


def test_values_stay_as_stored(dl19_duckdb, tmp_path):
    """Typing by the SQL type changes no value: the file reads back as the query's rows."""
    out = written(dl19_duckdb, "select * from score_values order by query, measure", tmp_path / "all.parquet")
    with warehouse.open(dl19_duckdb.db, read_only=True) as wh:
        rows = wh.sql("select * from score_values order by query, measure").rows
    assert len(rows) == 86
    assert [tuple(r.values()) for r in out.to_pylist()] == rows


def test_to_arrow_of_a_query_is_typed_the_same(dl19_duckdb):
    with warehouse.open(dl19_duckdb.db, read_only=True) as wh:
        arrow = wh.sql("select depth, numerator, 1 as x from score_values where false").to_arrow()
    assert [(f.name, f.type) for f in arrow.schema] == [("depth", pyarrow.int64()), ("numerator", pyarrow.float64()),
                                                        ("x", pyarrow.int32())]


@pytest.mark.postgres
def test_postgres_all_null_and_empty_columns_keep_their_sql_type(conformance, postgres_url, tmp_path):
    irw = Cli(postgres_url)
    dl19(irw, conformance)
    for fmt in FORMATS:
        out = written(irw, "select * from score_values limit 5", tmp_path / f"scores.{fmt}")
        assert out.num_rows == 5 and out.column("depth").null_count == out.column("numerator").null_count == 5
        types = {f.name: f.type for f in out.schema}
        assert pyarrow.types.is_integer(types["depth"]) and types["numerator"] == pyarrow.float64()
        assert types["denominator"] == pyarrow.float64() and types["run"] == pyarrow.string()
        runs = written(irw, "select * from runs", tmp_path / f"runs.{fmt}")
        assert runs.column("description").null_count == 1
        assert runs.schema.field("description").type == pyarrow.string()
        empty = written(irw, "select 1 as x where false", tmp_path / f"x.{fmt}")
        assert empty.num_rows == 0 and empty.schema.field("x").type == pyarrow.int32()
        empty = written(irw, "select 1::int2 a, 1::int8 b, 1.5::float4 c, 1.5::numeric(10, 2) d, 1.5::numeric e, "
                             "'x'::text f, true g, date '2020-01-02' h, timestamp '2020-01-02 03:04:05' i, "
                             "timestamptz '2020-01-02 03:04:05+00' j, interval '3 days' k, 7::numeric(10, 0) l "
                             "where false", tmp_path / f"types.{fmt}")
        # a numeric loads as a float (an int when whole: numeric(p, 0)), and a real as the double of its text
        assert {f.name: f.type for f in empty.schema} == {
            "a": pyarrow.int16(), "b": pyarrow.int64(), "c": pyarrow.float64(), "d": pyarrow.float64(),
            "e": pyarrow.float64(), "f": pyarrow.string(), "g": pyarrow.bool_(), "h": pyarrow.date32(),
            "i": pyarrow.timestamp("us"), "j": pyarrow.timestamp("us", tz="UTC"), "k": pyarrow.duration("us"),
            "l": pyarrow.int64()}


@pytest.mark.postgres
def test_postgres_values_stay_as_stored(conformance, postgres_url, tmp_path):
    irw = Cli(postgres_url)
    dl19(irw, conformance)
    query = ("select s.*, s.value::real as r, sum(s.run_id::int8) over () as total, avg(s.level) over () as mean "
             "from score_values s order by query, measure")
    out = written(irw, query, tmp_path / "all.parquet")
    with warehouse.open(postgres_url, read_only=True) as wh:
        rows = wh.sql(query).rows
    assert len(rows) == 86
    assert [tuple(r.values()) for r in out.to_pylist()] == rows
    types = {f.name: f.type for f in out.schema}
    assert (types["r"], types["total"], types["mean"]) == (pyarrow.float64(), pyarrow.int64(), pyarrow.float64())
