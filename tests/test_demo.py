"""`irw demo`, the entry points, and `make demo` from a clean clone (opt-in: IRW_TEST_CLEAN_CLONE=1)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import warehouse
from warehouse.commands.irw import app
from warehouse.commands.sample import DEMO_SYSTEMS

from conftest import COMMANDS, help_commands

REPO = Path(__file__).resolve().parent.parent
QUERIES = 50  # write_sample's default


def expected_rows(spec) -> int:
    return (QUERIES - spec.drop_queries) * spec.depth


def test_demo_builds_a_warehouse_with_six_runs_and_one_qrels_set(tmp_path):
    directory = tmp_path / "demo"
    result = CliRunner().invoke(app, ["demo", str(directory)], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    db = directory / "irw.duckdb"
    assert db.is_file()
    with warehouse.open(db, read_only=True) as wh:
        runs = {r["name"]: r for r in wh.runs().to_dicts()}
        assert len(runs) == 6
        assert {name: (r["rows"], r["queries"]) for name, r in runs.items()} == {
            spec.name: (expected_rows(spec), QUERIES - spec.drop_queries) for spec in DEMO_SYSTEMS}
        (qrels,) = wh.qrels_sets().to_dicts()
        assert (qrels["name"], qrels["queries"], qrels["judgments"]) == ("sample", QUERIES, QUERIES * 60)
    # The listing goes to stdout, one line per run under a header and a rule.
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["name", "system", "tag"]
    assert sorted(line.split()[0] for line in lines[2:]) == sorted(spec.name for spec in DEMO_SYSTEMS)
    assert f"# demo warehouse: {db}" in result.stderr

    # A second `irw demo` over the same folder finds the same bytes and changes nothing.
    again = CliRunner().invoke(app, ["demo", str(directory), "--format", "json"], catch_exceptions=False)
    assert again.exit_code == 0, again.stderr
    assert sorted(r["name"] for r in json.loads(again.stdout)) == sorted(spec.name for spec in DEMO_SYSTEMS)
    with warehouse.open(db, read_only=True) as wh:
        assert wh.sql("select count(*), sum(row_count) from runs").rows == [
            (6, sum(expected_rows(s) for s in DEMO_SYSTEMS))]


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["cli.py"], ["-m", "warehouse"]], ids=["cli.py", "python -m warehouse"])
def test_entry_points_print_help(argv):
    result = subprocess.run([sys.executable, *argv, "--help"], cwd=REPO, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert "Usage:" in result.stdout
    assert sorted(help_commands(result.stdout)) == sorted(COMMANDS)


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("IRW_TEST_CLEAN_CLONE") != "1",
                    reason="clones the repository and pip-installs it into a fresh venv; "
                           "set IRW_TEST_CLEAN_CLONE=1 to run")
def test_make_demo_from_a_clean_clone(tmp_path):
    if shutil.which("make") is None or shutil.which("git") is None:
        pytest.skip("needs git and make")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True, timeout=120)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "IRW_DB", "PYTHONPATH")}
    result = subprocess.run(["make", "demo"], cwd=clone, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    db = clone / "demo" / "irw.duckdb"
    assert db.is_file()
    listed = subprocess.run([str(clone / ".venv" / "bin" / "irw"), "runs", "--db", str(db), "--format", "csv"],
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert sorted(line.split(",")[0] for line in listed.stdout.splitlines()[1:]) == sorted(
        spec.name for spec in DEMO_SYSTEMS)
