"""The one-shot path: `irw trec-eval` and warehouse.evaluate_files evaluate files in an in-memory
database without a warehouse's bookkeeping (warehouse/evaluation/oneshot.py), and `irw trec-eval` starts
without the Typer app (warehouse/__main__.py).

- the one-shot schema (sql/oneshot/schema.sql) is generated from the migrations
  (scripts/oneshot_schema.py): the file is current, a new migration without regeneration fails
  naming the command, and the database it makes has a migrated warehouse's tables, columns, types,
  defaults, nullability and sequences, and only the keys it needs;
- `python -m warehouse trec-eval ...` (the installed command's path) prints the same bytes on
  stdout and stderr, with the same exit status, as the Typer command the rest of the tests use;
- starting it imports none of the libraries other commands need (Typer, Rich, NumPy, SQLAlchemy,
  pydantic) nor the warehouse API;
- `-m all_trec` without -q keeps only the judged rows (relstring prints only with -q) and prints
  trec_eval's summary lines.
"""
from __future__ import annotations

import io
import random
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import warehouse
from warehouse.ingestion import files as ingest
from warehouse.evaluation import oneshot
from warehouse.commands import trec_eval
from warehouse.commands.irw import app

from conftest import RUN_ROWS, modules_loaded_by, qrels_text, run_text, write_file


@pytest.fixture
def files(tmp_path):
    qrels = write_file(tmp_path, "qrels.txt", qrels_text())
    run = write_file(tmp_path, "run.txt", run_text(RUN_ROWS))
    return tmp_path, qrels, run


ROOT = Path(__file__).resolve().parent.parent


def _generator():
    """scripts/oneshot_schema.py, which writes sql/oneshot/schema.sql from the migrations."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("oneshot_schema", ROOT / "scripts" / "oneshot_schema.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_oneshot_schema_is_what_the_migrations_make(capsys):
    """sql/oneshot/schema.sql is generated from the migrations (scripts/oneshot_schema.py): the file
    is what the generator writes now."""
    assert _generator().main(["--check"]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("migration", ["alter table runs add column extra varchar;",
                                       "create table elsewhere (x integer);"],
                         ids=["changes-a-table", "touches-none"])
def test_a_new_migration_without_regeneration_fails_naming_the_command(migration, monkeypatch, capsys):
    """A migration added without writing the one-shot schema again fails the check, which names the
    command that writes it, whether or not it changes a table the one-shot uses (the file names
    the migrations it was made from)."""
    from warehouse.engines import duckdb as engine

    known, as_run = engine.migrations(), engine.migration_sql
    extra = f"schema/{known[-1][0] + 1:03d}_extra.sql"
    monkeypatch.setattr(engine, "migrations", lambda: [*known, (known[-1][0] + 1, extra)])
    monkeypatch.setattr(engine, "migration_sql", lambda path: migration if path == extra else as_run(path))
    generator = _generator()
    assert generator.main(["--check"]) == 1
    err = capsys.readouterr().err
    assert "sql/oneshot/schema.sql is not what the migrations under sql/schema/ make" in err
    assert "python scripts/oneshot_schema.py" in err
    assert "_extra.sql" in generator.generated()


def test_a_oneshot_database_has_a_migrated_warehouses_tables_without_its_keys():
    """What generation alone does not show: a database made by the written file (the DDL as DuckDB
    reads it back) has every table the generator names with a migrated warehouse's columns in
    order, with their types, defaults and nullability; of the keys only the generator's kept
    ones (evaluator.py's upserts need them), which the warehouse has too; the same sequences; and
    no schema history."""
    generator = _generator()
    with oneshot.database() as db:
        shot, shot_keys, shot_sequences = generator.catalog(db)
        has_history = db.fetchone("select count(*) from duckdb_tables() where table_name = 'irw_schema'")[0]
    with warehouse.open(":memory:") as wh:
        migrated, migrated_keys, migrated_sequences = generator.catalog(wh.db)
    assert not has_history
    assert set(shot) == set(generator.TABLES) and {"qrels", "runs", "run_rows", "scores", "measures"} <= set(shot)
    for table, columns in shot.items():
        assert columns == migrated[table], table
    assert shot_keys == generator.KEPT_KEYS and shot_keys <= migrated_keys
    assert migrated_keys - shot_keys  # the keys a stored warehouse keeps and the one-shot leaves out
    assert shot_sequences == migrated_sequences


def test_oneshot_database_is_in_memory_and_closed_after():
    with oneshot.database() as db:
        assert db.path == ":memory:"
    with pytest.raises(warehouse.WarehouseClosed):
        db.fetchone("select 1")


def test_all_trec_reads_judged_rows_only(conformance, monkeypatch):
    """-m all_trec, with or without -q, keeps only the run's judged rows (relstring, -q only, finds
    the unjudged documents among its top ranks as the ranks no judged document holds), and prints
    trec_eval's lines; --compat 10 ranks every row by its double score, so it keeps them all."""
    folder = conformance / "dl19-passage"
    expected = "".join(line for line in (folder / "expected_run.dl19.BM25.all_trec.q.v9.txt").read_text()
                       .splitlines(keepends=True) if line.split("\t")[1] == "all")
    judged_rows_only = []
    original = ingest.ingest_run

    def spy(*a, **k):
        judged_rows_only.append(k.get("judged_rows_only"))
        return original(*a, **k)

    monkeypatch.setattr(ingest, "ingest_run", spy)
    monkeypatch.chdir(folder)
    out = io.StringIO()
    trec_eval.run(["-m", "all_trec", "qrels.dl19-passage.txt", "runs/run.dl19.BM25.txt"], out)
    assert out.getvalue() == expected
    assert judged_rows_only == [True]
    out = io.StringIO()
    trec_eval.run(["-q", "-m", "all_trec", "qrels.dl19-passage.txt", "runs/run.dl19.BM25.txt"], out)
    assert out.getvalue() == (folder / "expected_run.dl19.BM25.all_trec.q.v9.txt").read_text()
    trec_eval.run(["-q", "--compat", "10", "-m", "all_trec", "qrels.dl19-passage.txt", "runs/run.dl19.BM25.txt"],
                  io.StringIO())
    assert judged_rows_only == [True, True, False]



@pytest.mark.parametrize("args", [["-q", "-m", "all_trec"], ["-q", "-c", "-m", "all_trec", "-m", "relstring.20"],
                                  ["-q", "-c", "--compat", "10", "-m", "all_trec", "-m", "relstring.5"],
                                  ["-q", "-J", "-l", "2", "-m", "all_trec"], ["-q", "-M", "7", "-m", "all_trec"]],
                         ids=["all_trec", "complete with relstring", "complete, 10.0", "-J -l 2", "-M 7"])
def test_per_query_lines_are_the_same_from_sql_and_python(args, conformance, monkeypatch, tmp_path):
    """-q lines are formatted by sql/oneshot/per_query_lines.sql; where it finds a value missing
    (and on Spark) Python formats them from the per-query rows, a query at a time when the rows
    come in query-id and measure order (trec_eval._values_by_query checks it), else value by
    value. All three print the same, with a qrels query the run lacks (-c: 9.0.8 prints no line
    for it, 10.0 its zeros) and several relstrings."""
    folder = conformance / "dl19-passage"
    monkeypatch.chdir(folder)
    lines = (folder / "runs" / "run.dl19.BM25.txt").read_text().splitlines(keepends=True)
    lacking = tmp_path / "run.txt"  # BM25's run without its first query
    lacking.write_text("".join(line for line in lines if line.split()[0] != lines[0].split()[0]))
    argv = [*args, "qrels.dl19-passage.txt", str(lacking)]
    from_sql = io.StringIO()
    trec_eval.run(argv, from_sql)

    monkeypatch.setattr(trec_eval, "_per_query_text", lambda *a, **k: None)
    in_order = io.StringIO()
    trec_eval.run(argv, in_order)
    original = trec_eval.Evaluator.evaluate

    def shuffled(self, *a, **k):
        evaluation = original(self, *a, **k)
        if evaluation.per_query is not None:
            random.Random(0).shuffle(evaluation.per_query.rows)
        return evaluation

    monkeypatch.setattr(trec_eval.Evaluator, "evaluate", shuffled)
    out_of_order = io.StringIO()
    trec_eval.run(argv, out_of_order)
    assert from_sql.getvalue() == in_order.getvalue() == out_of_order.getvalue()
    assert from_sql.getvalue().count("\n") > 1000
    if "-c" in args:
        assert (f"\t{lines[0].split()[0]}\t" in from_sql.getvalue()) == ("10" in args)


def test_files_evaluated_once_are_not_hashed(files, monkeypatch):
    """A one-shot database is thrown away: nothing will ask whether it holds a file's bytes, so
    neither irw trec-eval nor evaluate_files hashes the files (ingest's digest=False), -q (which
    keeps every run row for relstring) included."""
    folder, qrels, run = files
    digests = []
    original = ingest.scan_file

    def spy(path, *, digest=True):
        digests.append(digest)
        return original(path, digest=digest)

    monkeypatch.setattr(ingest, "scan_file", spy)
    monkeypatch.chdir(folder)
    trec_eval.run(["-q", "-m", "all_trec", "qrels.txt", "run.txt"], io.StringIO())
    warehouse.evaluate_files(qrels, [run], ["AP", "nDCG@10"])
    assert digests and not any(digests)
    with warehouse.open(":memory:") as wh:  # a warehouse keeps them
        wh.ingest_qrels(qrels, "qrels")
        wh.ingest_run(run, "run")
        assert all(len(sha) == 64 for sha, in wh.sql("select sha256 from runs union all select sha256 from qrels_sets").rows)

# -- the installed command's entry point (warehouse/__main__.py) ------------------------------------
def _entry_point(args: list[str], cwd: Path) -> tuple[int, str, str]:
    """`irw trec-eval ARGS` as the installed command runs it (warehouse/__main__.py)."""
    done = subprocess.run([sys.executable, "-m", "warehouse", "trec-eval", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


def _typer_command(args: list[str], cwd: Path, monkeypatch) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(app, ["trec-eval", *args])
    return result.exit_code, result.stdout, result.stderr


CASES = {
    "summary": ["-m", "map", "-m", "P.5", "qrels.txt", "run.txt"],
    "per query, official": ["-q", "qrels.txt", "run.txt"],
    "per query, all_trec with -c": ["-q", "-c", "-m", "all_trec", "qrels.txt", "run.txt"],
    "no summary": ["-q", "-n", "-m", "ndcg_cut.3", "qrels.txt", "run.txt"],
    "a double dash": ["-m", "recip_rank", "--", "qrels.txt", "run.txt"],
    "a double dash after -m": ["-m", "--", "map", "qrels.txt", "run.txt"],  # Click drops the first --
    "help": ["-h"],
    "bad arguments": ["-l", "x", "qrels.txt", "run.txt"],
    "unknown measure": ["-m", "mapp", "qrels.txt", "run.txt"],
    "missing file": ["qrels.txt", "nothing.txt"],
    "swapped files": ["run.txt", "qrels.txt"],
    "a bad line": ["qrels.txt", "bad.txt"],
    "no judged query": ["qrels.txt", "other.txt"],
}


@pytest.mark.parametrize("name", list(CASES))
def test_entry_point_prints_what_the_typer_command_prints(name, files, monkeypatch):
    folder, _, _ = files
    write_file(folder, "bad.txt", run_text(RUN_ROWS).replace("2.25", "NaN"))
    write_file(folder, "other.txt", run_text([("q7", "d1", 1, "1")]))
    args = CASES[name]
    fast = _entry_point(args, folder)
    typer = _typer_command(args, folder, monkeypatch)
    assert fast == typer
    expected_status = {"help": 0, "bad arguments": 1, "unknown measure": 1, "missing file": 2, "swapped files": 2,
                       "a bad line": 2, "no judged query": 7}.get(name, 0)
    assert fast[0] == expected_status, fast
    assert (fast[1] != "") == (expected_status == 0)


# What `irw trec-eval` must not import (issue 27: it is held to DuckDB's own start-up): the CLI's
# libraries, the warehouse API, and the packages of the other engines and of irw serve
NOT_ON_THE_TREC_EVAL_PATH = (
    "typer", "click", "rich", "numpy", "sqlalchemy", "duckdb_engine", "pydantic", "jinja2", "scipy", "sqlglot",
    "psycopg", "starlette", "uvicorn", "pyspark", "pandas", "polars", "pyarrow", "zstandard",
    "warehouse.commands.irw", "warehouse.core", "warehouse.ingestion.batch", "warehouse.ingestion.frames",
    "warehouse.reports", "warehouse.serve")


@pytest.mark.parametrize("runs", [["run.txt"], ["run.txt", "run.txt", "run.txt"]], ids=["one run", "three runs"])
def test_entry_point_imports_neither_the_cli_libraries_nor_the_warehouse_api(files, runs):
    folder, _, _ = files
    # three runs take the batch read of several run files (oneshot.ingest_runs), one the single-file ingest
    done, loaded = modules_loaded_by(["trec-eval", "-m", "map", "qrels.txt", *runs], folder)
    assert done.stdout.startswith("map")
    assert done.stdout.count("map") == len(runs)
    modules = set(loaded)
    imported = sorted(m for m in modules if m.split(".")[0] in NOT_ON_THE_TREC_EVAL_PATH
                      or any(m == name or m.startswith(name + ".") for name in NOT_ON_THE_TREC_EVAL_PATH))
    assert imported == []
    assert "warehouse.evaluation.oneshot" in modules
    # DuckDB's engine module, not the duckdb package around it (warehouse/engines/duckdb.py's import)
    assert "_duckdb" in modules and "duckdb" not in modules


def test_the_package_still_offers_its_api_and_submodules():
    done = subprocess.run(
        [sys.executable, "-c", "import warehouse; print(warehouse.open, warehouse.Warehouse, warehouse.evaluate_files, "
         "warehouse.Table, warehouse.InputFileError, warehouse.ingestion.files.ingest_run, warehouse.engines.duckdb.Database, "
         "warehouse.__version__); from warehouse import *; here = dir(); "
         "print(sorted(n for n in warehouse.__all__ if n not in here))"],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"
    with pytest.raises(AttributeError):
        warehouse.no_such_thing  # noqa: B018
