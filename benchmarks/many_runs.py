"""Many runs: a warehouse of N runs must feel like one of 10 (issue 12).

Builds a warehouse of N TREC-like runs (N x 5,000 lines: 50 queries x 100 documents), then times,
each in a fresh process (start-up included, as a user's command):

- leaderboard cold: `irw report leaderboard` with run pages, every score and test computed;
- leaderboard incremental: one run added, the same command again (fixed --baseline), the pages
  of the first call on disk: only what the new run changes is computed and written; then again
  with nothing new;
- leaderboard without run pages, history and compare (every run against the baseline) over the
  warehouse with the new run, after the leaderboard stored its scores and tests.

The bound of issue 12: each incremental or stored-scores command over 1,001 runs takes at most
3x the same command over 11 runs, and the 1,001-run leaderboard's peak memory stays under 1 GB.

    .venv/bin/python benchmarks/many_runs.py                  # 11 and 1,001 runs
    .venv/bin/python benchmarks/many_runs.py --runs 11 101    # other sizes

`measure(runs, work)` returns the numbers of one size as a dict; benchmarks/run.py's many-runs
section builds its warehouses from `data`, `run_name`, `system_name`, `BASELINE` and `MEASURES`
here. The data are generated with NumPy's PCG64 raw stream (stable across NumPy versions) from a
fixed seed, so a size gives the same files every time; they are written under
bench-data/many-runs/ and reused.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
QUERIES = 50
DOCS = 100                # documents a run returns per query: 50 x 100 = 5,000 lines
CANDIDATES = 300          # per query; each run ranks the same candidates
JUDGED = 200              # the first JUDGED candidates of a query are judged
SEED = 12
BASELINE = "bm25_tuned_k1_0.82_b_0.68_rm3_fb_docs_10_fb_terms_10_run_0000"
MEASURES = ("AP", "nDCG@10", "P@10")   # the leaderboard's default measures
SYSTEMS = 100             # runs s and s + 100 ... belong to one system


def run_name(s: int) -> str:
    """Long names, as real runs have them (the page size must hold with them)."""
    kind = ("bm25_tuned_k1_0.82_b_0.68_rm3_fb_docs_10_fb_terms_10", "splade_pp_ensemble_distil_max_len_512",
            "dense_tas_b_hnsw_ef_search_1000_quantized_pq_96")[s % 3]
    return f"{kind}_run_{s:04d}"


def system_name(s: int) -> str:
    return f"system_{s % SYSTEMS:03d}_" + ("lexical" if s % 3 == 0 else "learned_sparse" if s % 3 == 1 else "dense")


def _uniform(seed: int, stream: int, count: int) -> np.ndarray:
    """count values in [0, 1) from PCG64's raw 64-bit stream (stable across NumPy versions)."""
    raw = np.random.PCG64(np.random.SeedSequence([seed, stream])).random_raw(count)
    return (raw >> np.uint64(11)).astype(np.float64) / float(1 << 53)


def _grades() -> np.ndarray:
    """queries x CANDIDATES grades 0-3; candidates past JUDGED are unjudged (grade 0 for scoring)."""
    u = _uniform(SEED, 0, QUERIES * CANDIDATES).reshape(QUERIES, CANDIDATES)
    scale = 0.4 + _uniform(SEED, 1, QUERIES)[:, None] * 1.2
    grades = np.where(u < 0.03 * scale, 3, np.where(u < 0.08 * scale, 2, np.where(u < 0.18 * scale, 1, 0)))
    grades[:, JUDGED:] = 0
    return grades


def doc_id(q: int, i: int) -> str:
    return f"LA{q:03d}{i:04d}-{(q * 7919 + i * 104729) % 1000003:07d}"


def write_qrels(path: Path) -> None:
    grades = _grades()
    lines = [f"{401 + q} 0 {doc_id(q, i)} {grades[q, i]}\n" for q in range(QUERIES) for i in range(JUDGED)]
    path.write_text("".join(lines))


def write_run(path: Path, s: int, grades: np.ndarray) -> None:
    """Run s: a weight on the true grade plus noise, the top DOCS of the candidates, 4 decimals
    (which ties a few scores)."""
    weight = 0.15 + 0.9 * _uniform(SEED, 100 + s, 1)[0]
    noise = _uniform(SEED, 10_000 + s, QUERIES * CANDIDATES).reshape(QUERIES, CANDIDATES)
    scores = np.round(weight * grades + noise * 2.0, 4)
    lines = []
    tag = run_name(s)
    for q in range(QUERIES):
        order = np.lexsort((np.arange(CANDIDATES), -scores[q]))[:DOCS]
        lines.extend(f"{401 + q} Q0 {doc_id(q, i)} {rank} {scores[q, i]:.4f} {tag}\n"
                     for rank, i in enumerate(order, start=1))
    path.write_text("".join(lines))
    # a date per run, one day apart, so history has an order in time
    when = dt.datetime(2025, 1, 1, 9) + dt.timedelta(days=s)
    stamp = when.replace(tzinfo=dt.timezone.utc).timestamp()
    os.utime(path, (stamp, stamp))


def data(root: Path, runs: int) -> tuple[Path, list[Path]]:
    """qrels.txt and run files run-0000.txt ... under root/many-runs (written once, reused)."""
    folder = root / "many-runs"
    folder.mkdir(parents=True, exist_ok=True)
    qrels = folder / "qrels.txt"
    if not qrels.is_file():
        write_qrels(qrels)
    grades = _grades()
    paths = []
    for s in range(runs):
        path = folder / f"run-{s:04d}.txt"
        if not path.is_file():
            write_run(path, s, grades)
        paths.append(path)
    return qrels, paths


def build(db: Path, qrels: Path, paths: list[Path]) -> None:
    """A warehouse holding the qrels and the runs, each run of system system_name(s)."""
    import warehouse

    if db.exists():
        db.unlink()
    with warehouse.open(db) as wh:
        wh.ingest_qrels(qrels, "q")
        by_system: dict[str, list[tuple[Path, str]]] = {}
        for s, path in enumerate(paths):
            by_system.setdefault(system_name(s), []).append((path, run_name(s)))
        for system, files in by_system.items():
            for path, name in files:
                wh.ingest_run(path, name, system=system)


# -- timing -----------------------------------------------------------------------------------------
def _irw(args: list[str], timeout: float = 3600) -> dict:
    """One irw command in a fresh process: wall seconds (spawn to exit), peak memory and what it
    printed on stderr. It is started by benchmarks/launch.py, a bare interpreter, because a child
    forked from this process would report at least this process's resident set as its peak."""
    with tempfile.TemporaryDirectory() as folder:
        result = Path(folder) / "result.json"
        proc = subprocess.run([sys.executable, str(Path(__file__).with_name("launch.py")), str(result), str(timeout),
                               sys.executable, "-m", "warehouse", *args],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
        launched = json.loads(result.read_text())
    if proc.returncode != 0 or launched["status"] != 0:
        raise RuntimeError(f"irw {' '.join(args)} failed: {proc.stderr}")
    return {"seconds": round(launched["end"] - launched["start"], 3), "peak_mb": round(launched["maxrss"] / 2**20, 1),
            "stderr": proc.stderr.strip()}


def measure(runs: int, work: Path, data_root: Path | None = None, repeats: int = 3) -> dict:
    """Builds a warehouse of `runs` runs under work, then times each command in a fresh process:
    the leaderboard with its run pages cold (every score, test and page computed), after one run
    is added (incremental; `repeats` times, a new run each time) and once more with nothing new,
    without run pages, history and compare (each `repeats` times). A job's numbers are the median
    of its repeats: {job: {seconds, peak_mb, stderr (of the last)}}, and the pages' sizes in bytes."""
    data_root = data_root or REPO / "bench-data"
    qrels, paths = data(data_root, runs + repeats)
    work.mkdir(parents=True, exist_ok=True)
    db = work / f"many-{runs}.duckdb"
    start = time.perf_counter()
    build(db, qrels, paths[:runs])
    built = time.perf_counter() - start
    site = work / f"site-{runs}"
    if site.exists():
        shutil.rmtree(site)
    common = ["--db", str(db), "--qrels", "q"]
    board = ["report", "leaderboard", *common, "--baseline", BASELINE, "-o", str(site / "board.html")]
    out: dict = {"runs": runs, "build_seconds": round(built, 2)}
    out["leaderboard_cold"] = _irw(board)
    import warehouse

    samples: dict[str, list[dict]] = {}
    for r in range(repeats):
        with warehouse.open(db) as wh:
            wh.ingest_run(paths[runs + r], run_name(runs + r), system=system_name(runs + r))
        samples.setdefault("leaderboard_incremental", []).append(_irw(board))
    for _ in range(repeats):
        for job, args in (("leaderboard_again", board),
                          ("leaderboard_no_run_pages", ["report", "leaderboard", *common, "--baseline", BASELINE,
                                                        "--no-run-pages", "-o", str(site / "board-only.html")]),
                          ("history", ["report", "history", *common, "-m", "AP", "-o", str(site / "history.html")]),
                          ("compare", ["compare", *common, "--baseline", BASELINE])):
            samples.setdefault(job, []).append(_irw(args))
    for job, taken in samples.items():
        middle = sorted(taken, key=lambda sample: sample["seconds"])[len(taken) // 2]
        out[job] = {**middle, "all_seconds": [sample["seconds"] for sample in taken],
                    "stderr": "" if job == "compare" else taken[-1]["stderr"]}
    out["stored_runs_after"] = runs + repeats
    out["pages_bytes"] = {name: (site / name).stat().st_size for name in ("board.html", "history.html")}
    return out


def ratios(small: dict, large: dict) -> dict[str, float]:
    """Each job's time over `large` runs divided by its time over `small` (issue 12's bound: <= 3)."""
    return {job: round(large[job]["seconds"] / small[job]["seconds"], 2) for job in large
            if isinstance(large[job], dict) and "seconds" in large[job] and job in small}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, nargs="+", default=[10, 1000],
                        help="stored runs before the one added (default 10 and 1000: 11 and 1,001 after)")
    parser.add_argument("--work", type=Path, default=REPO / "bench-data" / "many-runs-work")
    parser.add_argument("--repeats", type=int, default=3, help="runs added one by one, and repeats of each job")
    args = parser.parse_args(argv)
    results = [measure(n, args.work, repeats=args.repeats) for n in args.runs]
    for result in results:
        print(f"{result['runs']:,} runs stored, then one added at a time up to {result['stored_runs_after']:,} "
              f"(built in {result['build_seconds']} s); median of {args.repeats}:")
        for job, value in result.items():
            if isinstance(value, dict) and "seconds" in value:
                print(f"  {job:26s} {value['seconds']:7.2f} s {value['peak_mb']:7.1f} MB  {value.get('all_seconds', '')}  "
                      + " / ".join(line for line in value["stderr"].splitlines() if "run page" in line))
        print(f"  pages: {result['pages_bytes']}")
    if len(results) >= 2:
        print(f"time with {results[-1]['runs']:,} runs stored / with {results[0]['runs']:,}: "
              f"{ratios(results[0], results[-1])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
