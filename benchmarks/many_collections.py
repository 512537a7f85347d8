"""Many collections (issue 23): `irw runs` and `--qrels X` selection over a warehouse of N runs in
20 collections, against a one-collection warehouse of the same N runs.

The one-collection warehouse is benchmarks/many_runs.py's (N TREC-like runs of 50 queries x 100
documents, one qrels set `q`). The 20-collection one is a copy of it whose run k answers the
queries of collection k mod 20: its query ids (in run_rows, run_queries and judged_run_rows) get
the collection's prefix (`c07-401`), and the qrels set is stored once per collection (`c00` ...
`c19`, each holding `q`'s judgments under its prefix). Same runs, rows and bytes per run; only the
collections differ, so what is timed is what 20 collections cost: `irw runs` lists which set
judges each run (judged_by), and `irw eval --qrels c00 -m AP` chooses the runs c00 judges (a
twentieth of them) and leaves the others out, where `--qrels q` takes every run.

Each command runs in its own process (start-up included): `irw runs`, then `irw eval --qrels X
-m AP` cold (no score stored) and again (scores stored). The bound of issue 23: each at most 1.5x
the same command on the one-collection warehouse.

    .venv/bin/python benchmarks/many_collections.py --runs 200          # a small check
    .venv/bin/python benchmarks/many_collections.py --runs 10000        # issue 23's size (long)

benchmarks/run.py's `collections` section (many_collections.section) runs the same (its sizes: --scale-max).
"""
from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import many_runs  # noqa: E402

COLLECTIONS = 20
RATIO = 1.5
TITLE = "Many collections: irw runs and --qrels X selection, 20 collections against one (issue 23)"


def collection(k: int) -> str:
    return f"c{k:02d}"


def derive(one: Path, many: Path, collections: int = COLLECTIONS) -> None:
    """many: a copy of the one-collection warehouse `one` whose runs are spread over `collections`
    collections (run k: collection k mod collections), each with its own qrels set (see above)."""
    import duckdb

    for p in (many, Path(str(many) + ".wal")):
        if p.exists():
            p.unlink()
    shutil.copyfile(one, many)
    con = duckdb.connect(str(many))
    try:
        con.execute("begin")
        prefix = f"'c' || lpad(cast((run_id - 1) % {collections} as varchar), 2, '0') || '-' || query_id"
        for table in ("run_rows", "run_queries", "judged_run_rows"):
            con.execute(f"update {table} set query_id = {prefix}")
        (set_id,) = con.execute("select qrels_set_id from qrels_sets where name = 'q'").fetchone()
        ids = {}
        for k in range(collections):
            (ids[k],) = con.execute(
                "insert into qrels_sets (name, description, source_path, sha256, query_count, judgment_count) "
                "select ?, 'q, as collection ' || ?, source_path, sha256 || ?, query_count, judgment_count "
                "from qrels_sets where qrels_set_id = ? returning qrels_set_id",
                [collection(k), collection(k), collection(k), set_id]).fetchone()
            con.execute("insert into qrels (qrels_set_id, query_id, doc_id, grade) "
                        "select ?, ? || '-' || query_id, doc_id, grade from qrels where qrels_set_id = ?",
                        [ids[k], collection(k), set_id])
        if list(ids.values()) != list(range(ids[0], ids[0] + collections)):
            raise RuntimeError(f"the qrels sets' ids are not consecutive: {ids}")
        # each run's judged rows belong to its collection's set
        con.execute("update judged_run_rows set qrels_set_id = ? + (run_id - 1) % ? where qrels_set_id = ?",
                    [ids[0], collections, set_id])
        con.execute("delete from qrels where qrels_set_id = ?", [set_id])
        con.execute("delete from qrels_sets where qrels_set_id = ?", [set_id])
        con.execute("commit")
        con.execute("checkpoint")
    finally:
        con.close()


JOBS = ("irw runs", "irw eval --qrels X -m AP: cold", "irw eval --qrels X -m AP: stored")


def commands(db: Path, qrels: str) -> list[tuple[str, list[str]]]:
    evaluate = ["eval", "--db", str(db), "--qrels", qrels, "-m", "AP", "-f", "tsv"]
    return list(zip(JOBS, (["runs", "--db", str(db), "-f", "tsv"], evaluate, evaluate)))


def measure(runs: int, work: Path, timed, data_root: Path, build, repeats: int = 3) -> dict:
    """{"one"|"many": {job: [samples]}, "build_seconds", "derive_seconds"}: each job `repeats`
    times, on a fresh copy of each warehouse (so `cold` computes every score). timed(argv) runs
    one irw command and returns its sample; build(db, qrels, paths) builds the one-collection warehouse."""
    work.mkdir(parents=True, exist_ok=True)
    qrels, paths = many_runs.data(data_root, runs)
    one, many = work / f"collections-{runs}-one.duckdb", work / f"collections-{runs}-many.duckdb"
    started = time.perf_counter()
    build(one, qrels, paths[:runs])
    built = time.perf_counter() - started
    started = time.perf_counter()
    derive(one, many)
    derived = time.perf_counter() - started
    out: dict = {"runs": runs, "build_seconds": built, "derive_seconds": derived, "one": {}, "many": {}}
    scratch = work / "collections-scratch.duckdb"
    for _ in range(repeats):
        for kind, source, qrels_name in (("one", one, "q"), ("many", many, collection(0))):
            _remove(scratch)
            shutil.copyfile(source, scratch)
            for job, argv in commands(scratch, qrels_name):
                out[kind].setdefault(job, []).append(timed(argv))
    last = out["many"][JOBS[1]][-1]
    out["left_out_note"] = "\n".join(line for line in (last.get("stderr", "") if isinstance(last, dict) else "")
                                     .splitlines() if "left out" in line)
    for path in (one, many, scratch):
        _remove(path)
    return out


def _remove(path: Path) -> None:
    for p in (path, Path(str(path) + ".wal")):
        if p.exists():
            p.unlink()


# -- benchmarks/run.py's section ---------------------------------------------------------------------
def section(bench, h) -> None:
    """bench: run.py's Bench; h: the run.py module (run_timed, run_worker, Result, Table, secs, mem)."""
    scale = [100] if bench.args.quick else [n for n in (1000, 10000) if n <= max(1000, bench.args.scale_max)]
    irw = h.irw_command()
    t = bench.args.timeout
    table = h.Table(TITLE, ["job", *[c for n in scale for c in (f"{n:,} runs: 1 collection",
                                                                f"{n:,} runs: 20 collections", "ratio")]])
    rows = {job: [job] for job in JOBS}
    for n in scale:
        repeats = bench.repeats if n <= 1000 else 1

        def build(db: Path, qrels: Path, paths: list[Path], n=n) -> None:
            sample = h.run_worker("many-runs-build", {"db": str(db), "data_root": str(bench.out), "runs": n,
                                                      "qrels": str(qrels)}, t)
            if sample.error:
                raise RuntimeError(f"building {n} runs: {sample.error}")

        h.log(f"  [collections] {n} runs: building, then {repeats} repeat(s) of each command")
        try:
            result = measure(n, bench.work / "collections", lambda argv: h.run_timed(irw + argv, t), bench.out,
                             build, repeats)
        except Exception as exc:   # a failed build or copy: the other sections go on
            h.log(f"  [collections] {n} runs failed: {exc}")
            for job in JOBS:
                rows[job] += [f"failed: {exc}", "-", "-"]
            continue
        for job in JOBS:
            one, many = h.Result(job, result["one"][job]), h.Result(job, result["many"][job])
            if one.error or many.error:
                rows[job] += [one.error or "-", many.error or "-", "-"]
                continue
            ratio = many.median("wall") / one.median("wall")
            rows[job] += [f"{h.secs(one.median('wall'))}, {h.mem(one.median('rss'))}",
                          f"{h.secs(many.median('wall'))}, {h.mem(many.median('rss'))}", f"{ratio:.2f}x"]
            bench.target(f"{job} over {n:,} runs, 20 collections vs one", f"<= {RATIO:g}x",
                         f"{ratio:.2f}x ({h.secs(many.median('wall'))} vs {h.secs(one.median('wall'))})",
                         ratio <= RATIO, set_here=not bench.args.quick and n == 10000)
        table.notes.append(f"{n:,} runs: one-collection warehouse built in {result['build_seconds']:.0f} s, the "
                           f"20-collection copy derived in {result['derive_seconds']:.1f} s")
    table.rows = list(rows.values())
    table.notes.append("time, peak memory: each command in its own process, spawn to exit, median of the repeats; "
                       "each repeat on fresh copies (cold: no score stored; stored: the same command again). X is "
                       "q (every run) on one collection, c00 (a twentieth of the runs; the rest left out) on 20. "
                       "The 20-collection warehouse is the one-collection one with each run's queries moved to "
                       "collection k mod 20 (benchmarks/many_collections.py); the goal is set at 10,000 runs")
    bench.emit(table)


# -- on its own --------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, nargs="+", default=[1000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--work", type=Path, default=HERE.parent / "bench-data" / "collections-work")
    args = parser.parse_args(argv)

    def timed(argv: list[str]) -> dict:
        return many_runs._irw(argv)

    for n in args.runs:
        result = measure(n, args.work, timed, HERE.parent / "bench-data", many_runs.build, args.repeats)
        print(f"{n:,} runs (one collection built in {result['build_seconds']:.0f} s, 20 collections derived in "
              f"{result['derive_seconds']:.1f} s); median of {args.repeats}, each command in its own process:")
        for job in JOBS:
            one = sorted(s["seconds"] for s in result["one"][job])[args.repeats // 2]
            many = sorted(s["seconds"] for s in result["many"][job])[args.repeats // 2]
            print(f"  {job:34s} one collection {one:7.3f} s   20 collections {many:7.3f} s   "
                  f"ratio {many / one:.2f}x (goal <= {RATIO:g}x)")
        print(f"  20 collections, eval's note: {result['left_out_note']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
