"""The benchmark's spark section keeps its promises without running Spark (no timing is asserted):
the launcher's --tree mode counts a child its parent never waits for (pyspark's JVM), the
agreement check catches a changed value and a missing line, --quick picks the small runs, and a
run of some sections (--only) keeps what results.md holds."""
from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    """benchmarks/run.py and benchmarks/spark.py as modules (run.py puts benchmarks/ first on sys.path)."""
    saved_path = list(sys.path)
    modules = {}
    try:
        for name in ("run", "spark"):
            spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module   # dataclasses look their module up there
            spec.loader.exec_module(module)
            modules[name] = module
        yield modules
    finally:
        for name in modules:
            sys.modules.pop(f"bench_{name}", None)
        sys.path[:] = saved_path


# A parent that starts a child holding ~200 MB and exits without waiting for it, as pyspark leaves its JVM.
ORPHANING_PARENT = (
    "import subprocess, sys, time\n"
    "subprocess.Popen([sys.executable, '-c', 'x = b\"x\" * 200_000_000; import time; time.sleep(1.0)'])\n"
    "time.sleep(0.6)\n")


def launch(tmp_path: Path, *flags: str) -> dict:
    report = tmp_path / f"launch{''.join(flags)}.json"
    subprocess.run([sys.executable, str(BENCHMARKS / "launch.py"), *flags, str(report), "60",
                    sys.executable, "-c", ORPHANING_PARENT], check=True)
    return json.loads(report.read_text())


def test_tree_mode_counts_the_child_its_parent_never_waits_for(tmp_path):
    alone, tree = launch(tmp_path), launch(tmp_path, "--tree")
    assert alone["status"] == tree["status"] == 0
    assert alone["maxrss"] < 150e6            # wait4 sees the parent only
    assert tree["maxrss"] >= 200e6            # the orphan's 200 MB, sampled while it lived
    assert tree["processes"] >= 2 and tree["tree_end"] >= tree["end"]


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_agreement_catches_a_changed_value_and_a_missing_line(bench, tmp_path):
    spark = bench["spark"]
    lines = ["map                   \t1\t0.2500", "map                   \tall\t0.2500", "P_10                  \tall\t0.1000"]
    duck = write(tmp_path / "duck", lines)
    same = spark.agreement(duck, write(tmp_path / "same", lines))
    assert same["agrees"] and same["same bytes"] and same["lines"] == 3
    spaced = spark.agreement(duck, write(tmp_path / "spaced", [line.replace("\t", " ") for line in lines]))
    assert spaced["agrees"] and not spaced["same bytes"]
    changed = spark.agreement(duck, write(tmp_path / "changed", [lines[0], lines[1].replace("0.2500", "0.2501")]))
    assert not changed["agrees"]
    assert changed["differing"] == ["P_10 all: only on DuckDB", "map all: 0.2501 vs 0.2500"]
    assert not spark.agreement(write(tmp_path / "empty", []), write(tmp_path / "empty2", []))["agrees"]


def test_quick_runs_the_spark_section_on_100k_and_200k_lines(bench, tmp_path):
    run, spark = bench["run"], bench["spark"]
    args = run.parse_args(["--only", "spark", "--quick"])
    assert args.sections == ["spark"]

    class Bench:   # what Section.shapes reads of run.py's Bench
        sizes = dict(run.QUICK)

    assert spark.Section.shapes(type("S", (), {"bench": Bench})()) == [100, 200]
    Bench.sizes = dict(run.FULL)
    assert spark.Section.shapes(type("S", (), {"bench": Bench})()) == [7000, 28000]


def test_a_run_of_some_sections_keeps_results_md(bench, tmp_path):
    run = bench["run"]
    path = tmp_path / "results.md"
    every = argparse.Namespace(sections=list(run.SECTIONS))
    only = argparse.Namespace(sections=["spark"])
    run.write_markdown(path, "# full run\n\n### Targets\n", every)
    run.write_markdown(path, "# spark run 1\n\n### Spark\n", only)
    text = path.read_text()
    assert text.startswith("# full run\n\n### Targets\n")
    assert "## spark run 1\n\n#### Spark\n" in text
    run.write_markdown(path, "# spark run 2\n", only)                 # the same sections: replaced
    text = path.read_text()
    assert "spark run 1" not in text and text.count("<!-- bench-only:spark:start -->") == 1
    assert text.startswith("# full run\n") and text.rstrip().endswith("<!-- bench-only:spark:end -->")
    run.write_markdown(path, "# postgres run\n", argparse.Namespace(sections=["postgres"]))
    assert "spark run 2" in path.read_text() and "## postgres run" in path.read_text()
    run.write_markdown(path, "# full run again\n", every)             # a full run writes the whole file
    assert path.read_text() == "# full run again\n"
