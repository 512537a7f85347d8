"""A served leaderboard over 10,000 runs (issue 26, item 4): `irw serve` on a PostgreSQL warehouse and
on a DuckDB file of N runs whose scores and tests are stored, each page timed as a browser asks it.

The warehouse: N small TREC-like runs (20 queries x 20 documents: 400 lines; long names and 100
systems as in benchmarks/many_runs.py), ingested by irw (`Warehouse.ingest_run`) into a DuckDB
file, then the leaderboard built once by irw's own code (`reports.leaderboard`), which computes
and stores every score the page shows (AP, nDCG@10, P@10, Judged@10 and AP's tie-order range) and
every test against the baseline. The PostgreSQL warehouse gets that file's rows, table by table, in
one COPY each, into a schema irw's migrations made (`irw copy` moves a run at a time: 10,000 runs
would take the better part of an hour). Small runs keep the build to minutes: what the page reads
grows with the runs, not with their lengths, as their scores are stored.

Timed, each on a running `irw serve` (a process of its own, started once per engine), as the
seconds from sending the request to having the whole body: the leaderboard's first page right after
the server starts (first), the same page again (warm), page 2 sorted by nDCG@10 ascending, a
filtered page (the runs whose name or system holds "learned"), and the JSON API's page. Goal:
each under 1 s on PostgreSQL at 10,000 runs.

    .venv/bin/python benchmarks/serve_scale.py --runs 10000 --postgres   # 10,000 runs, both engines
    .venv/bin/python benchmarks/serve_scale.py --runs 500                # a small check, DuckDB only

benchmarks/run.py's `serve` section (serve_scale.section) runs the same: --quick 300 runs, else 10,000.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

QUERIES = 20
DOCS = 20
CANDIDATES = 60
JUDGED = 40
SEED = 26
SYSTEMS = 100
GOAL = 1.0
TITLE = "Served leaderboard over many runs: irw serve, each page's time (issue 26)"
PAGES = (
    ("first page, first request", "/qrels/q"),
    ("first page, warm", "/qrels/q"),
    ("page 2 sorted by nDCG@10", "/qrels/q?sort=nDCG%4010&order=asc&page=2"),
    ("filtered page (learned)", "/qrels/q?filter=learned"),
    ("JSON API, page 2", "/api/qrels/q/leaderboard?page=2&sort=P%4010"),
)


def run_name(s: int) -> str:
    kind = ("bm25_tuned_k1_0.82_b_0.68_rm3_fb_docs_10_fb_terms_10", "SPLADE_P_P_ENSEMBLE_DISTIL",
            "tct_colbert_v2_hnp_bm25_hybrid")[s % 3]
    return f"{kind}_run_{s:05d}"


def system_name(s: int) -> str:
    return f"system_{s % SYSTEMS:03d}_" + ("lexical" if s % 3 == 0 else "learned_sparse" if s % 3 == 1 else "dense")


def _uniform(stream: int, count: int) -> np.ndarray:
    raw = np.random.PCG64(np.random.SeedSequence([SEED, stream])).random_raw(count)
    return (raw >> np.uint64(11)).astype(np.float64) / float(1 << 53)


def _grades() -> np.ndarray:
    u = _uniform(0, QUERIES * CANDIDATES).reshape(QUERIES, CANDIDATES)
    grades = np.where(u < 0.05, 3, np.where(u < 0.12, 2, np.where(u < 0.25, 1, 0)))
    grades[:, JUDGED:] = 0
    return grades


def data(root: Path, runs: int) -> tuple[Path, list[Path]]:
    """qrels.txt and runs/run-00000.txt ... under root/serve-runs (written once, reused)."""
    folder = root / "serve-runs"
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    grades = _grades()
    qrels = folder / "qrels.txt"
    if not qrels.is_file():
        qrels.write_text("".join(f"{301 + q} 0 D{q:02d}-{i:03d} {grades[q, i]}\n"
                                 for q in range(QUERIES) for i in range(JUDGED)))
    paths = []
    for s in range(runs):
        path = folder / "runs" / f"run-{s:05d}.txt"
        if not path.is_file():
            weight = 0.1 + 0.9 * _uniform(100 + s, 1)[0]
            scores = np.round(weight * grades + _uniform(100_000 + s, QUERIES * CANDIDATES)
                              .reshape(QUERIES, CANDIDATES) * 2.0, 3)
            lines = []
            for q in range(QUERIES):
                order = np.lexsort((np.arange(CANDIDATES), -scores[q]))[:DOCS]
                lines.extend(f"{301 + q} Q0 D{q:02d}-{i:03d} {rank} {scores[q, i]:.3f} r{s}\n"
                             for rank, i in enumerate(order, start=1))
            path.write_text("".join(lines))
            stamp = (dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(hours=s)).timestamp()
            os.utime(path, (stamp, stamp))
        paths.append(path)
    return qrels, paths


def build_duckdb(db: Path, qrels: Path, paths: list[Path], log=print) -> float:
    """The DuckDB warehouse of these runs with the leaderboard's scores and tests stored; seconds taken."""
    import warehouse
    from warehouse import reports

    start = time.perf_counter()
    for p in (db, Path(str(db) + ".wal")):
        if p.exists():
            p.unlink()
    with warehouse.open(db) as wh:
        wh.ingest_qrels(qrels, "q")
        for s, path in enumerate(paths):
            wh.ingest_run(path, run_name(s), system=system_name(s))
            if (s + 1) % 1000 == 0:
                log(f"    ingested {s + 1} runs ({time.perf_counter() - start:.0f} s)")
        reports.leaderboard(wh, "q")
    return time.perf_counter() - start


# the warehouse's tables in the order their keys need (irw_schema is the target's own)
TABLES = ("qrels_sets", "qrels", "qrels_subtopics", "runs", "run_rows", "run_queries", "judged_run_rows",
          "evaluations", "measures", "evaluated", "scores", "significance_results")
SEQUENCES = {"qrels_set_id_seq": ("qrels_sets", "qrels_set_id"), "run_id_seq": ("runs", "run_id"),
             "evaluation_id_seq": ("evaluations", "evaluation_id")}


def build_postgres(db: Path, url: str) -> float:
    """The DuckDB warehouse's tables, rows as they are (scores and stored tests included), copied in
    bulk into a new irw warehouse at url (its schema made by irw: `warehouse.open`), one COPY per
    table; seconds taken. `irw copy` moves a run at a time (1,000 runs of 5,000 lines in 40 s), which
    is what a user copying a warehouse waits for, not what a served page costs; the rows are the same."""
    import duckdb
    import psycopg

    import warehouse

    start = time.perf_counter()
    with warehouse.open(url) as wh:  # the schema, by irw's migrations
        if wh.db.fetchone("select count(*) from runs")[0]:
            raise RuntimeError(f"{url} already holds runs: give an empty database")
    source = duckdb.connect(str(db), read_only=True)
    try:
        with psycopg.connect(url) as target:
            with target.cursor() as cur:
                for table in TABLES:
                    columns = [r[0] for r in cur.execute(
                        "select column_name from information_schema.columns where table_schema = current_schema() "
                        "and table_name = %s order by ordinal_position", [table]).fetchall()]
                    kinds = dict(source.execute("select column_name, data_type from information_schema.columns "
                                                "where table_name = ?", [table]).fetchall())
                    select = ", ".join(f"to_json({c})::varchar" if kinds[c].startswith("MAP") else f'"{c}"'
                                       for c in columns)
                    csv = db.parent / f"{table}.csv"
                    source.execute(f"copy (select {select} from {table}) to '{csv}' (header false)")
                    with cur.copy(f"copy {table} ({', '.join(columns)}) from stdin with (format csv)") as copy:
                        with open(csv, "rb") as f:
                            while block := f.read(1 << 20):
                                copy.write(block)
                    csv.unlink()
                for sequence, (table, column) in SEQUENCES.items():
                    cur.execute(f"select setval('{sequence}', (select coalesce(max({column}), 0) + 1 from {table}), "
                                "false)")
                cur.execute("analyze")
    finally:
        source.close()
    return time.perf_counter() - start


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[float, int, int]:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=600) as response:
        body = response.read()
        status = response.status
    return time.perf_counter() - start, status, len(body)


def time_pages(target: str) -> dict[str, dict]:
    """Starts `irw serve --db target` and times PAGES in order: {label: {seconds, status, bytes}}."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "warehouse", "serve", "--db", target, "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"irw serve did not start: {proc.stderr.read().decode()[-2000:]}")
                time.sleep(0.1)
        out = {}
        for label, path in PAGES:
            seconds, status, size = _get(base + path)
            out[label] = {"seconds": round(seconds, 3), "status": status, "bytes": size}
        return out
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _postgres_server(folder: Path):
    """A throwaway PostgreSQL (scripts/postgres.sh): its URL, or None when none can start."""
    result = subprocess.run(["bash", str(REPO / "scripts" / "postgres.sh"), "start", str(folder)],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        return None, result.stderr.strip() or result.stdout.strip()
    return result.stdout.strip().splitlines()[-1], ""


def _stop_postgres(folder: Path) -> None:
    subprocess.run(["bash", str(REPO / "scripts" / "postgres.sh"), "stop", str(folder)], capture_output=True,
                   check=False)


def measure(runs: int, work: Path, data_root: Path, postgres: str | bool | None, log=print) -> dict:
    """Builds the warehouses and times the pages on each: {engine: {label: {...}}, build seconds}."""
    qrels, paths = data(data_root, runs)
    work.mkdir(parents=True, exist_ok=True)
    db = work / f"serve-{runs}.duckdb"
    out: dict = {"runs": runs}
    log(f"  [serve] building the {runs:,}-run DuckDB warehouse")
    out["build_duckdb"] = round(build_duckdb(db, qrels, paths, log), 1)
    out["duckdb"] = time_pages(str(db))
    if postgres:
        folder = None
        url = postgres if isinstance(postgres, str) else None
        if url is None:
            folder = work / "postgres"
            url, why = _postgres_server(folder)
            if url is None:
                out["postgres_skipped"] = f"no PostgreSQL server could start: {why}"
                return out
        try:
            log("  [serve] copying its tables into PostgreSQL")
            out["build_postgres"] = round(build_postgres(db, url), 1)
            out["postgres"] = time_pages(url)
        finally:
            if folder is not None:
                _stop_postgres(folder)
    return out


# -- benchmarks/run.py's section ---------------------------------------------------------------------
def section(bench, h) -> None:
    """bench: run.py's Bench; h: the run.py module (Table, log)."""
    runs = 300 if bench.args.quick else 10000
    try:
        result = measure(runs, bench.work / "serve", bench.out, True, h.log)
    except Exception as exc:  # a failed build: the other sections go on
        h.log(f"  [serve] failed: {exc}")
        table = h.Table(TITLE, ["page", "result"])
        table.rows = [["all", f"failed: {exc}"]]
        bench.emit(table)
        return
    engines = [e for e in ("postgres", "duckdb") if e in result]
    table = h.Table(TITLE, ["page", *[f"{runs:,} runs, {e}" for e in engines]])
    for label, _path in PAGES:
        table.rows.append([label, *[f"{result[e][label]['seconds']:.3f} s ({result[e][label]['bytes']:,} bytes)"
                                    for e in engines]])
        if "postgres" in result:
            seconds = result["postgres"][label]["seconds"]
            bench.target(f"served leaderboard over {runs:,} runs on PostgreSQL: {label}", f"< {GOAL:g} s",
                         f"{seconds:.3f} s", seconds < GOAL, set_here=not bench.args.quick)
    table.notes.append(f"built: DuckDB {result['build_duckdb']:.0f} s (ingest of {runs:,} runs of {QUERIES * DOCS} "
                       "lines and the leaderboard's scores and tests stored by irw)"
                       + (f", PostgreSQL {result['build_postgres']:.0f} s (its tables copied in bulk)"
                          if "build_postgres" in result else ""))
    if "postgres_skipped" in result:
        table.notes.append(result["postgres_skipped"])
    table.notes.append("seconds from the request to the whole body, one `irw serve` per engine, pages in the order "
                       "listed; paths: " + "; ".join(f"{label}: {path}" for label, path in PAGES))
    bench.emit(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10000)
    parser.add_argument("--work", type=Path, default=REPO / "bench-data" / "serve-work")
    parser.add_argument("--postgres", nargs="?", const=True, default=None,
                        help="also on PostgreSQL: a URL of an empty database, or none for a throwaway server")
    parser.add_argument("--time-only", action="store_true", help="time the pages of warehouses built before")
    args = parser.parse_args(argv)
    if args.time_only:
        db = args.work / f"serve-{args.runs}.duckdb"
        result = {"runs": args.runs, "duckdb": time_pages(str(db))}
        if isinstance(args.postgres, str):
            result["postgres"] = time_pages(args.postgres)
    else:
        result = measure(args.runs, args.work, REPO / "bench-data", args.postgres)
    for key, value in result.items():
        if isinstance(value, dict):
            print(f"{key}:")
            for label, sample in value.items():
                print(f"  {label:32s} {sample['seconds']:7.3f} s  status {sample['status']}  {sample['bytes']:,} bytes")
        else:
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
