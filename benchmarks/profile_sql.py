"""Where irw spends its time: one row per SQL file it runs, for files to numbers or for ingest.

    .venv/bin/python benchmarks/profile_sql.py files QRELS RUN [-m AP -m nDCG@10 ...]
    .venv/bin/python benchmarks/profile_sql.py ingest QRELS RUN
    .venv/bin/python benchmarks/profile_sql.py files QRELS RUN --plans /tmp/plans

`files` times warehouse.evaluate_files (the benchmark's files-irw job, by default with its seven
measures and per-query values); `ingest` times ingest_run of RUN into a new file warehouse whose
qrels were ingested first (untimed), then closing it. The table lists each SQL file under sql/ in
the order first run, with its calls and seconds; "outside SQL" is the rest (Python, statements
that are not files, start-up). --plans DIR writes DuckDB's profile tree of every SQL file run
that took longer than --slower-than seconds (profiling itself adds a little time).

The data of `make bench` serve well: bench-data/msmarco-q7000-s42/{qrels,run}.txt after a run.
Timings of one process, not a benchmark: see benchmarks/run.py for medians beside other tools.
"""
from __future__ import annotations

import time

STARTED = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Iterator  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workers import MEASURES  # noqa: E402


@dataclass
class Statement:
    sql_file: str
    calls: int = 0
    seconds: float = 0.0
    plans: list[str] = field(default_factory=list)


@contextmanager
def timed_sql_files(plans: bool, slower_than: float) -> Iterator[dict[str, Statement]]:
    """Times every Database.run_file call while the block runs (and keeps DuckDB's profile tree of
    the slow ones when plans is true); yields sql file -> Statement, in the order first run."""
    from warehouse.engines.duckdb import Database

    timings: dict[str, Statement] = {}
    profiled: set[int] = set()
    run_file = Database.run_file

    def timed_run_file(db, relative_path, params=None):
        if plans and id(db.con) not in profiled:
            db.con.execute("set enable_profiling = 'no_output'")
            profiled.add(id(db.con))
        started = time.perf_counter()
        result = run_file(db, relative_path, params)
        seconds = time.perf_counter() - started
        entry = timings.setdefault(relative_path, Statement(relative_path))
        entry.calls += 1
        entry.seconds += seconds
        if plans and seconds > slower_than:
            entry.plans.append(operator_tree(json.loads(db.con.get_profiling_information(format="json"))))
        return result

    Database.run_file = timed_run_file
    try:
        yield timings
    finally:
        Database.run_file = run_file


def operator_tree(profile: dict) -> str:
    """DuckDB's profile of the last statement as an indented tree: operator, rows out, seconds
    summed over threads, and what it works on (DuckDB 2.0.1's own query_tree format is refused)."""
    lines = [f"{'operator':<48} {'rows':>12} {'seconds':>8}  detail"]

    def walk(node: dict, depth: int) -> None:
        detail = "; ".join(f"{key}: {value}" for key, value in node.get("extra_info", {}).items()
                           if key != "Estimated Cardinality")
        label = "  " * depth + node.get("name", "?")
        lines.append(f"{label:<48} {node.get('intermediate_rows', 0):>12,} {node.get('timing', 0.0):>8.3f}  "
                     f"{detail[:160]}")
        for child in node.get("children", []):
            walk(child, depth + 1)

    for node in profile.get("operator", []):
        walk(node, 0)
    return "\n".join(lines) + "\n"


def profile_files(args: argparse.Namespace) -> float:
    import warehouse

    started = time.perf_counter()
    warehouse.evaluate_files(args.qrels, args.run, args.measures or MEASURES, per_query=True)
    return time.perf_counter() - started


def profile_ingest(args: argparse.Namespace) -> float:
    import warehouse

    with tempfile.TemporaryDirectory() as scratch:
        wh = warehouse.open(Path(scratch) / "profile.duckdb")
        wh.ingest_qrels(args.qrels, "qrels")
        started = time.perf_counter()
        wh.ingest_run(args.run, "run")
        wh.close()
        return time.perf_counter() - started


def report(timings: dict[str, Statement], total: float, imported: float) -> list[str]:
    width = max([len(s.sql_file) for s in timings.values()] + [len("outside SQL")])
    in_sql = sum(s.seconds for s in timings.values())
    rows = [f"{'sql file':<{width}}  calls  seconds  share",
            f"{'-' * width}  -----  -------  -----"]
    for statement in timings.values():
        rows.append(f"{statement.sql_file:<{width}}  {statement.calls:>5}  {statement.seconds:>7.3f}  "
                    f"{statement.seconds / total:>5.0%}")
    rows.append(f"{'outside SQL':<{width}}  {'':>5}  {total - in_sql:>7.3f}  {(total - in_sql) / total:>5.0%}")
    rows.append(f"{'total':<{width}}  {'':>5}  {total:>7.3f}  {1:>5.0%}")
    rows.append(f"(import warehouse: {imported:.3f} s, before the total)")
    return rows


def write_plans(timings: dict[str, Statement], directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for statement in timings.values():
        for index, plan in enumerate(statement.plans, 1):
            path = directory / f"{re.sub(r'[^a-z0-9_]+', '_', statement.sql_file)}_{index}.txt"
            path.write_text(plan)
            written.append(path)
    return written


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("job", choices=("files", "ingest"))
    parser.add_argument("qrels")
    parser.add_argument("run")
    parser.add_argument("-m", "--measure", dest="measures", action="append",
                        help=f"a measure for `files` (repeat; default {' '.join(MEASURES)})")
    parser.add_argument("--plans", type=Path, metavar="DIR", help="write DuckDB's profile tree of slow SQL files here")
    parser.add_argument("--slower-than", type=float, default=0.05, metavar="SECONDS",
                        help="which SQL files get a profile tree (default 0.05)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import warehouse  # its import time is reported apart

    imported = time.perf_counter() - STARTED
    job = profile_files if args.job == "files" else profile_ingest
    with timed_sql_files(args.plans is not None, args.slower_than) as timings:
        try:
            total = job(args)
        except warehouse.IrwError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
    print("\n".join(report(timings, total, imported)))
    if args.plans is not None:
        for path in write_plans(timings, args.plans):
            print(f"plan: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
