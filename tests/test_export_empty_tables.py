"""`irw export DIR` of a warehouse whose tables are partly empty, on DuckDB and PostgreSQL.

A user walk: on a PostgreSQL warehouse where nothing was evaluated, `irw export` printed (and its
manifest named) `scores 0 rows scores.parquet`, but wrote no such file, so reading it failed (`No
files found that match the pattern`). An empty table is a Parquet file of 0 rows with the table's
columns and types, as a DuckDB warehouse's export writes it: every file the manifest and the summary
name is there and reads back, on both engines.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest

import warehouse
from warehouse.store.export import INTERNAL_TABLES, MANIFEST, PARTITIONED

from conftest import Cli, QRELS_ROWS, RUN_ROWS, qrels_text, run_text, write_file

# the tables empty in every warehouse here (nothing evaluated, no measure added, no test run)
ALWAYS_EMPTY = {"scores", "evaluated", "evaluations", "measures", "user_measures", "significance_results"}


def _reference_columns(tmp_path: Path) -> dict[str, list[tuple[str, str]]]:
    """table -> its (column, type) pairs in a new DuckDB warehouse: what every export's files hold."""
    path = tmp_path / "reference.duckdb"
    with warehouse.open(path):
        pass
    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [r[0] for r in con.execute(
            "select table_name from information_schema.tables where table_schema = 'main' "
            "and table_type = 'BASE TABLE' order by 1").fetchall() if r[0] not in INTERNAL_TABLES]
        return {t: [r[:2] for r in con.execute(f'describe "{t}"').fetchall()] for t in tables}
    finally:
        con.close()


def _parquet(path: Path) -> str:
    """One file's rows, its own columns only (not a partition folder's name as a column)."""
    return "read_parquet('" + str(path).replace("'", "''") + "', hive_partitioning = false)"


@pytest.mark.parametrize("contents", ["qrels and a run", "a run only"])
@pytest.mark.parametrize("engine", ["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_every_file_the_export_names_exists_and_reads_back_with_the_table_s_columns(engine, contents, tmp_path,
                                                                                    request):
    db = request.getfixturevalue("postgres_url") if engine == "postgres" else tmp_path / "irw.duckdb"
    with warehouse.open(db) as wh:
        if contents == "qrels and a run":
            wh.ingest_qrels(write_file(tmp_path, "base.qrels", qrels_text(QRELS_ROWS)), "base")
        wh.ingest_run(write_file(tmp_path, "tagA.run", run_text(RUN_ROWS)), name="tagA")
    expected = _reference_columns(tmp_path)
    target = tmp_path / "ex"
    result = Cli(tmp_path / "unused.duckdb")("export", target, "--db", db, db=False)
    assert result.exit_code == 0, result.stderr

    manifest = json.loads((target / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["engine"] == ("postgres" if engine == "postgres" else "duckdb")
    assert sorted(manifest["tables"]) == sorted(expected) and manifest["skipped"] == {}
    for name in manifest["files"]:
        assert (target / name).is_file(), f"the manifest names {name}, which the export did not write"
    # every file the printed summary names is there too
    for line in result.stdout.splitlines():
        for named in re.findall(r"\S+\.parquet", line):
            assert (target / named).is_file(), f"the summary names {named}: {line!r}"

    con = duckdb.connect()
    empty = set()
    for table, entry in manifest["tables"].items():
        if table in PARTITIONED:
            assert entry["partitioned_by"] == PARTITIONED[table].key
            assert (target / entry["path"]).is_dir(), table
            files = [target / folder / "data_0.parquet" for folder in entry["partitions"].values()]
        else:
            assert entry["path"] == f"{table}.parquet" and entry["path"] in manifest["files"], table
            files = [target / entry["path"]]
        rows = 0
        for path in files:
            assert path.is_file(), f"{table}: {path} is missing"
            described = [r[:2] for r in con.execute(f"describe select * from {_parquet(path)}").fetchall()]
            assert described == expected[table], table
            rows += con.execute(f"select count(*) from {_parquet(path)}").fetchone()[0]
        assert rows == entry["rows"], table
        if not rows:
            empty.add(table)
    assert ALWAYS_EMPTY <= empty, "the test would check no empty table"
    if contents == "a run only":
        assert {"qrels_sets", "judged_run_rows", "qrels"} <= empty
        assert con.execute(f"select count(*) from {_parquet(target / 'qrels_sets.parquet')}").fetchone()[0] == 0
    else:
        assert not {"qrels_sets", "qrels", "runs", "run_rows"} & empty
    # the walk's failing read: an empty table's file, read by its name
    assert con.execute(f"select * from {_parquet(target / 'user_measures.parquet')}").fetchall() == []
    assert [d[0] for d in con.execute(f"select * from {_parquet(target / 'scores.parquet')}").description] == \
        [c for c, _ in expected["scores"]]
