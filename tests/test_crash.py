"""Crash injection: `irw ingest`, `irw ingest --replace` and `irw eval` killed with SIGKILL at chosen
points, after which the warehouse must open, hold exactly what it held before the command or exactly
what the uninterrupted command leaves (every table compared, timestamps aside), and the same command
run again must succeed and leave that.

The points are states of the process, not times: irw runs in a subprocess that is stepped
(conftest.SteppedIrw: it runs 2 ms, is stopped with SIGSTOP, looked at through /proc, continued) and
is killed while stopped at the first step where the point holds: the warehouse locked, the run file
being read, the run read but nothing committed, the commit in DuckDB's write-ahead log, the log being
checkpointed into the file. No hook in irw is needed, and a loaded machine only makes steps finer.
"""
from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Callable

import pytest

from conftest import Cli, SteppedIrw, View, contents_at, stepping_supported

pytestmark = pytest.mark.skipif(not stepping_supported(), reason="needs Linux /proc and SIGSTOP")

QUERIES, DEPTH = 100, 400  # 40,000 lines: each phase lasts several 2 ms steps even on an idle machine


def write_run(path: Path, tag: str, seed: int, queries: int = QUERIES, depth: int = DEPTH) -> Path:
    rng = random.Random(seed)
    with path.open("w") as out:
        for q in range(queries):
            for rank, doc in enumerate(rng.sample(range(5_000), depth), start=1):
                out.write(f"q{q} Q0 d{doc} {rank} {depth - rank + rng.random():.4f} {tag}\n")
    return path


Point = Callable[[View, list[View]], bool]  # (now, every earlier view) -> kill here?

# The state a kill at each point must leave: "before" when the commit cannot have been reached,
# "after" once it is in the write-ahead log and being checkpointed; either while it is being logged.
OUTCOME = {
    "warehouse locked for writing": ("before",),
    "reading the run file": ("before",),
    "run read, nothing committed": ("before",),
    "computing, nothing committed": ("before",),
    "commit in the write-ahead log": ("before", "after"),
    "checkpointing": ("after",),
}


def points(db: Path, run: Path, initial_size: int) -> dict[str, Point]:
    def read_before(views):
        return any(v.has_open(run) for v in views)

    return {
        "warehouse locked for writing": lambda v, _: v.lock == "WRITE",
        "reading the run file": lambda v, _: v.has_open(run),
        "run read, nothing committed":
            lambda v, views: read_before(views) and not v.has_open(run) and v.has_open(db) and not v.wal,
        "computing, nothing committed":
            lambda v, views: v.lock == "WRITE" and not v.wal and sum(w.lock == "WRITE" for w in views) >= 25,
        "commit in the write-ahead log": lambda v, _: v.wal and v.db_size == initial_size,
        "checkpointing": lambda v, _: v.wal and v.db_size > initial_size,
    }


def kill_at(name: str, point: Point, db: Path, *args: str) -> list[View]:
    """Runs `irw *args --db db` and kills it with SIGKILL at the first step where point holds;
    fails if irw ended before."""
    irw = SteppedIrw(db, *args)
    try:
        if not irw.step_until(point):
            code, _, stderr = irw.finish()
            pytest.fail(f"irw {' '.join(args)} ended (exit {code}) before the point '{name}' was seen "
                        f"in {len(irw.views)} steps: {stderr}")
        irw.kill()
        return irw.views
    finally:
        irw.close()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Input files, and two warehouses: `base` (qrels q; run small, evaluated with AP) and `with_big`
    (base, run big ingested and evaluated with AP and P@10)."""
    folder = tmp_path_factory.mktemp("crash")
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d * 7} {d % 3}\n" for q in range(QUERIES) for d in range(60)))
    files = {
        "qrels": qrels,
        "small": write_run(folder / "small.run", "small", seed=1, depth=20),
        "big": write_run(folder / "big.run", "big", seed=2),
        "big v2": write_run(folder / "big-v2.run", "big", seed=3),
    }
    base = folder / "base.duckdb"
    cli = Cli(base)
    for args in (("ingest", "qrels", qrels, "--name", "q"), ("ingest", "run", files["small"]),
                 ("eval", "--qrels", "q", "-m", "AP")):
        assert cli(*args).exit_code == 0
    with_big = folder / "with_big.duckdb"
    shutil.copyfile(base, with_big)
    cli = Cli(with_big)
    for args in (("ingest", "run", files["big"]), ("eval", "--qrels", "q", "-m", "AP", "-m", "P@10")):
        assert cli(*args).exit_code == 0
    return files, {"base": base, "with_big": with_big}


COMMANDS = {
    # name: (starting warehouse, argv (file names as keys of `inputs`), the points it is killed at)
    "ingest": ("base", ["ingest", "run", "big"],
               ["reading the run file", "run read, nothing committed", "commit in the write-ahead log",
                "checkpointing"]),
    "replace": ("with_big", ["ingest", "run", "big v2", "--replace"],
                ["run read, nothing committed", "commit in the write-ahead log", "checkpointing"]),
    "eval": ("with_big", ["eval", "--qrels", "q", "-m", "all_trec"],
             ["warehouse locked for writing", "computing, nothing committed", "commit in the write-ahead log"]),
}
CASES = [pytest.param(command, point, id=f"{command}: {point}")
         for command, (_, _, killed_at) in COMMANDS.items() for point in killed_at]


@pytest.fixture(scope="module")
def expected(inputs, tmp_path_factory):
    """{command: (contents before, contents after the uninterrupted command)}."""
    files, warehouses = inputs
    folder = tmp_path_factory.mktemp("crash-expected")
    out = {}
    for command, (start, argv, _) in COMMANDS.items():
        db = folder / f"{command}.duckdb"
        shutil.copyfile(warehouses[start], db)
        result = Cli(db)(*[files.get(a, a) for a in argv])
        assert result.exit_code == 0, result.stderr
        out[command] = (contents_at(warehouses[start]), contents_at(db))
    return out


def test_the_uninterrupted_commands_change_the_warehouse(expected):
    """Otherwise 'before or after' below would be one state and the tests could not tell."""
    for command, (before, after) in expected.items():
        assert before != after, command
    before, after = expected["ingest"]
    assert after["run_rows"][0] - before["run_rows"][0] == QUERIES * DEPTH
    before, after = expected["replace"]
    assert after["run_rows"][0] == before["run_rows"][0] and after["run_rows"][1] != before["run_rows"][1]
    assert after["scores"][0] < before["scores"][0]  # the replaced run's scores are dropped
    before, after = expected["eval"]
    assert after["scores"][0] > before["scores"][0]


@pytest.mark.parametrize("command, point", CASES)
def test_a_killed_command_leaves_the_warehouse_as_before_or_as_after_and_can_be_run_again(
        command, point, inputs, expected, tmp_path):
    files, warehouses = inputs
    start, argv, _ = COMMANDS[command]
    db = tmp_path / "irw.duckdb"
    shutil.copyfile(warehouses[start], db)
    args = [str(files.get(a, a)) for a in argv]
    run = files[argv[2]] if command != "eval" else files["big"]
    views = kill_at(point, points(db, run, db.stat().st_size)[point], db, *args)
    assert views, "killed before the first look"

    before, after = expected[command]
    cli = Cli(db)
    listed = cli("runs", "--format", "csv")  # a user's next command: the warehouse opens
    assert listed.exit_code == 0, listed.stderr
    assert "Traceback" not in listed.stderr
    state = contents_at(db)
    assert state in (before, after), f"killed at '{point}': the warehouse is neither as before nor as after"
    assert ("before" if state == before else "after") in OUTCOME[point]
    names = {line.split(",")[0] for line in listed.stdout.splitlines()[1:]}
    assert names == ({"small", "big"} if command != "ingest" or state == after else {"small"})

    again = cli(*args)
    assert again.exit_code == 0, again.stderr
    assert contents_at(db) == after
