"""`irw demo`: builds a warehouse from the sample data and shows what it holds."""
from __future__ import annotations

import datetime as dt
import os
import shlex
import sys
from pathlib import Path

from warehouse.formats import formatting
from warehouse.core import Warehouse
from warehouse.commands.sample import DEMO_SYSTEMS, write_sample


def run_demo(directory: Path, fmt: formatting.OutputFormat | str = formatting.OutputFormat.table) -> Path:
    data_dir = directory / "data"
    qrels_path, run_paths = write_sample(data_dir)
    _date_runs(run_paths)
    db_path = directory / "irw.duckdb"
    with Warehouse(db_path) as wh:
        wh.ingest_qrels(qrels_path, "sample", description="generated sample: 50 queries, grades 0-3")
        for spec, path in zip(DEMO_SYSTEMS, run_paths):
            wh.ingest_run(path, spec.name, system=spec.name.split("-")[0], description=spec.description)
        print(f"# demo warehouse: {db_path}", file=sys.stderr)
        print("# stored runs", file=sys.stderr)
        sys.stdout.write(formatting.render(wh.runs(), fmt))
        # a first evaluation for the person watching (stdout keeps the one data listing)
        evaluation = wh.evaluate(wh.run_names(), "sample", ["AP", "nDCG@10", "P@10", "R@100"])
        print(f"# first evaluation ({evaluation.settings.describe()})", file=sys.stderr)
        sys.stderr.write(formatting.render(evaluation.wide()))
        _write_reports(wh, directory)
    # a newcomer's next command in the clone (`irw runs` alone looks for ./irw.duckdb, not this one),
    # ending its line so that what is copied is the command
    print(f"# next, with irw on your PATH (in the checkout: . .venv/bin/activate): irw runs --db "
          f"{shlex.quote(str(db_path))}", file=sys.stderr)
    print("# then the commands of docs/quickstart.md, \"The demo warehouse\"", file=sys.stderr)
    return db_path


# The sample runs are dated a week apart, so the history report has a time axis and the demo's
# reports are the same bytes on every machine (the run date is the file time read at ingest).
DEMO_START = dt.datetime(2026, 1, 5, 9, 0, tzinfo=dt.timezone.utc)


def _date_runs(run_paths: list[Path]) -> None:
    for week, path in enumerate(run_paths):
        stamp = (DEMO_START + dt.timedelta(weeks=week)).timestamp()
        os.utime(path, (stamp, stamp))


def _write_reports(wh: Warehouse, directory: Path) -> Path:
    """The history of the sample systems, then the leaderboard (with a page per run); prints its path."""
    from warehouse import reports

    history = reports.write_history(wh, "sample", directory / "history.html")
    print(f"# history: {history.resolve()}", file=sys.stderr)
    written = reports.write_leaderboard(wh, "sample", directory / "leaderboard.html")
    print(f"# leaderboard: {written[0].resolve()} (run pages in {reports.run_pages_dir(written[0]).resolve()})",
          file=sys.stderr)
    return written[0]
