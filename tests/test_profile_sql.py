"""benchmarks/profile_sql.py keeps working: it names the SQL files irw runs (no timing is asserted)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from warehouse.commands.sample import DEMO_SYSTEMS, write_sample

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "profile_sql.py"


@pytest.fixture(scope="module")
def profile_sql():
    saved_path = list(sys.path)  # the script puts benchmarks/ first on sys.path for its own imports
    spec = importlib.util.spec_from_file_location("profile_sql", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)
        sys.path[:] = saved_path


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    qrels, runs = write_sample(tmp_path_factory.mktemp("sample"), queries=5, systems=DEMO_SYSTEMS[:1])
    return qrels, runs[0]


def test_files_lists_each_sql_file_in_order(profile_sql, sample, capsys):
    qrels, run = sample
    assert profile_sql.main(["files", str(qrels), str(run), "-m", "AP"]) == 0
    lines = capsys.readouterr().out.splitlines()
    names = [line.split()[0] for line in lines[2:-3]]
    # the column reader took the file, judged rows were ranked, then the measures ran
    assert names.index("ingest/stage_run_columns.sql") < names.index("ingest/counting_comparisons.sql") \
        < names.index("eval/summary.sql")
    assert lines[-3].startswith("outside SQL") and lines[-2].startswith("total")


def test_ingest_writes_operator_trees(profile_sql, sample, tmp_path, capsys):
    qrels, run = sample
    assert profile_sql.main(["ingest", str(qrels), str(run), "--plans", str(tmp_path), "--slower-than", "0"]) == 0
    assert "ingest/insert_run_rows.sql" in capsys.readouterr().out
    tree = (tmp_path / "ingest_insert_run_rows_sql_1.txt").read_text()
    assert "INSERT" in tree and "WINDOW" in tree


def test_a_bad_input_is_a_message_not_a_traceback(profile_sql, sample, tmp_path, capsys):
    qrels, _ = sample
    assert profile_sql.main(["files", str(qrels), str(tmp_path / "missing.txt")]) == 1
    assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'missing.txt'}: no such file"
