"""`irw demo`: builds a warehouse from the sample data and shows what it holds."""
from __future__ import annotations

import sys
from pathlib import Path

from . import formatting
from .core import Warehouse
from .sample import DEMO_SYSTEMS, write_sample


def run_demo(directory: Path, fmt: formatting.OutputFormat | str = formatting.OutputFormat.table) -> Path:
    data_dir = directory / "data"
    qrels_path, run_paths = write_sample(data_dir)
    db_path = directory / "irw.duckdb"
    with Warehouse(db_path) as wh:
        wh.ingest_qrels(qrels_path, "sample", description="generated sample: 50 queries, grades 0-3")
        for spec, path in zip(DEMO_SYSTEMS, run_paths):
            wh.ingest_run(path, spec.name, system=spec.name.split("-")[0], description=spec.description)
        print(f"# demo warehouse: {db_path}", file=sys.stderr)
        print("# stored runs", file=sys.stderr)
        sys.stdout.write(formatting.render(wh.runs(), fmt))
    return db_path
