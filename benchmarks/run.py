"""irw against pytrec_eval, ranx and ir_measures, on the same generated files, in one sitting.

    python benchmarks/run.py                 # the full benchmark (long: run it on an idle machine)
    python benchmarks/run.py --quick         # small sizes, one repeat: a smoke check in seconds
    python benchmarks/run.py --only files,leaderboard --repeats 5

Every job runs in its own process (benchmarks/workers.py, or the irw CLI itself); its peak memory
is that process's maximum resident set (wait4's ru_maxrss) and its time the median of --repeats.
Tables go to stdout and, as markdown, to benchmarks/results.md; progress goes to stderr.
See benchmarks/README.md for what each number means.
"""
from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import importlib.util
import json
import math
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
from workers import (FIVE_PRINTED, FIVE_REQUEST, MEASURES, TREC_EVAL_NAMES,  # noqa: E402
                     TREC_EVAL_REQUEST)

WORKER = HERE / "workers.py"
LAUNCHER = HERE / "launch.py"
SECTIONS = ("small", "large", "files", "track", "ingest", "evaluate", "leaderboard", "sql", "scaling", "many-runs", "collections", "bombs",
            "postgres", "pg-scale", "serve", "spark")
# trec_eval (C), when there is one: --trec-eval, $IRW_TREC_EVAL, `trec_eval` on PATH, or the build
# benchmarks/README.md describes (a cache folder outside the repository, never committed).
TREC_EVAL_CACHE = Path.home() / ".cache" / "irw-bench" / "trec_eval" / "trec_eval"
CONFORMANCE = ROOT.parent / "shared" / "conformance" / "dl19-passage"
REPEAT_CAP = 120    # many-runs: a size whose one repeat (eval ... sql) takes longer is not repeated
PEERS = ("pytrec_eval", "ranx", "ir_measures")
PEER_PACKAGES = {"pytrec_eval": "pytrec-eval-terrier", "ranx": "ranx", "ir_measures": "ir-measures"}
TOLERANCE = 1e-4

FULL = {"msmarco_queries": 7000, "trec_queries": 250, "leaderboard_runs": 100,
        "scaling_lines": [1_000_000, 7_000_000, 28_000_000], "repeats": 3}
FULL_RUN_LINES = FULL["msmarco_queries"] * 1000  # the 7M-line run every target but the leaderboard's is set on
QUICK = {"msmarco_queries": 100, "trec_queries": 20, "leaderboard_runs": 10,
         "scaling_lines": [50_000, 100_000, 200_000], "repeats": 1}
# Issue 12's shapes (sections small and large): (label, kind, queries); dl19 is the real DL19
# passage qrels and its 43,000-line run when /work/shared/conformance is there, else a TREC-like
# 43-query shape of the same size.
# Each shape: (label, kind, queries, role); the role names the full-size shape whose targets it
# stands for (--quick runs smaller shapes in the same roles, their targets shown as info).
FULL["shapes_small"] = [("dl19", "dl19", 43, "dl19"), ("250k", "trec", 250, "250k")]
FULL["shapes_large"] = [("2M", "msmarco", 2000, "2M"), ("7M", "msmarco", 7000, "7M")]
QUICK["shapes_small"] = [("dl19", "dl19", 43, "dl19"), ("20k", "trec", 20, "250k")]
QUICK["shapes_large"] = [("100k", "msmarco", 100, "2M"), ("200k", "msmarco", 200, "7M")]
FULL["run_scale"] = [10, 100, 1000]        # --scale-max 10000 adds the 10,000-run point
QUICK["run_scale"] = [10, 30]

TARGETS = {
    "files_pytrec_eval": 3.0,   # files to numbers: irw at least 3x faster than pytrec_eval
    "files_ranx": 8.0,          # ... and 8x faster than ranx, end to end
    "ingest_vs_count": 1.5,     # ingest within 1.5x of DuckDB counting the lines
    "stored_vs_pytrec": 5.0,    # evaluating a stored run 5x faster than pytrec_eval's evaluate()
    "incremental_seconds": 1.0,  # leaderboard over 100 stored runs, one added: under 1 s
    # issue 12 (ratios in one run; "x pytrec_eval" = pytrec_eval's wall time / irw's)
    "dl19_seconds": 0.2,         # irw trec-eval, DL19-sized file, five measures: at most ~0.2 s
    "dl19_vs_pytrec": 0.6,       # ... and >= 0.6x pytrec_eval's whole job in its own process
    "dl19_memory": 2.0,          # ... with peak memory within 2x pytrec_eval's
    # issue 27 (target 4): irw trec-eval on DL19, five measures, held to DuckDB's own floor (FLOOR_JOB)
    "dl19_vs_floor_time": 1.6,   # wall at most 1.6x the floor's
    "dl19_vs_floor_memory": 1.3,  # peak memory at most 1.3x the floor's
    "all_trec_small": 1.5,       # all_trec: irw's time within 1.5x pytrec_eval's (all its measures)
    "files_250k": 1.2,           # evaluate_files on the 250k shape >= 1.2x pytrec_eval
    "files_7m": 2.28,            # 7M lines >= 2.28x pytrec_eval with the benchmark's measures
    "all_trec_7m": 1.5,          # all_trec at 7M, with and without -q: >= 1.5x pytrec_eval (all its measures)
    "many_runs_ratio": 3.0,      # leaderboard incremental over 1,001 runs <= 3x the same over 11
    "many_runs_memory": 2**30,   # ... and its peak memory under 1 GB
}


# DuckDB's own floor (issue 27, target 4): a process that imports DuckDB, connects and runs one
# statement; `irw trec-eval` on a small file cannot start for less.
FLOOR_JOB = "DuckDB's floor (import, connect, select 1)"
FLOOR_CODE = "import duckdb; duckdb.connect().execute('select 1')"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- running one job -------------------------------------------------------------------------
@dataclass
class Sample:
    wall: float = math.nan        # spawn -> end of the timed work (or process exit for a CLI)
    job: float = math.nan         # the timed work inside the process
    cpu: float = math.nan         # user + system seconds of the process
    rss: int = 0                  # peak resident set, bytes
    phases: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)
    means: dict = field(default_factory=dict)
    per_query: dict = field(default_factory=dict)
    trec_per_query: dict = field(default_factory=dict)   # {query: {trec_eval name: value}}
    summary: dict = field(default_factory=dict)          # {trec_eval name: the "all" line's value}
    error: str | None = None


def _wait(cmd: list[str], stdout, timeout: float) -> tuple[float, float, float, int, str]:
    """Runs cmd through launch.py; returns (start, end, cpu seconds, peak RSS bytes, error or "").

    The launcher, not this process, forks cmd: a child forked from here would inherit this
    process's memory high-water mark in its ru_maxrss (see launch.py)."""
    with tempfile.TemporaryDirectory(prefix="irw-bench-") as tmp, tempfile.TemporaryFile(mode="w+b") as err:
        report = Path(tmp) / "launch.json"
        try:
            subprocess.run([sys.executable, str(LAUNCHER), str(report), str(timeout), *cmd], stdout=stdout,
                           stderr=err, cwd=ROOT, timeout=timeout + 60)
        except subprocess.TimeoutExpired:
            return math.nan, math.nan, math.nan, 0, f"launcher hung past {timeout + 60:.0f} s"
        err.seek(0)
        tail = err.read().decode("utf-8", "replace").strip().splitlines()[-3:]
        if not report.is_file():
            return math.nan, math.nan, math.nan, 0, "launcher failed: " + " | ".join(tail)
        r = json.loads(report.read_text())
    message = ""
    if r["timed_out"]:
        message = f"killed after {timeout:.0f} s (--timeout)"
    elif r["status"] != 0:
        message = f"exit {r['status']}: " + " | ".join(tail)
    return r["start"], r["end"], r["cpu"], r["maxrss"], message


def run_worker(task: str, args: dict, timeout: float) -> Sample:
    with tempfile.TemporaryDirectory(prefix="irw-bench-") as tmp:
        result = Path(tmp) / "result.json"
        start, end, cpu, rss, error = _wait([sys.executable, str(WORKER), task, json.dumps(args), str(result)],
                                            subprocess.DEVNULL, timeout)
        if error or not result.is_file():
            return Sample(error=error or "no result written", cpu=cpu, rss=rss)
        out = json.loads(result.read_text())
    return Sample(wall=out["done_at"] - start, job=out["job"], cpu=cpu, rss=rss, phases=out["phases"],
                  info=out.get("info", {}), means=out.get("means", {}), per_query=out.get("per_query", {}),
                  trec_per_query=out.get("trec_per_query", {}))


def parse_trec_output(text: str) -> tuple[dict, dict]:
    """trec_eval's lines (name, query or "all", value) -> ({query: {name: value}}, {name: value});
    values that are not numbers (runid, relstring) are left out."""
    per_query: dict[str, dict[str, float]] = {}
    summary: dict[str, float] = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) != 3:
            continue
        name, query, value = fields
        try:
            number = float(value)
        except ValueError:
            continue
        if query == "all":
            summary[name] = number
        else:
            per_query.setdefault(query, {})[name] = number
    return per_query, summary


def run_command(cmd: list[str], timeout: float) -> Sample:
    """A command that prints trec_eval's lines (irw trec-eval, trec_eval): wall time is spawn to
    exit, and its output is read back for the agreement check."""
    with tempfile.TemporaryFile(mode="w+b") as out:
        start, end, cpu, rss, error = _wait(cmd, out, timeout)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    if error:
        return Sample(error=error, cpu=cpu, rss=rss)
    per_query, summary = parse_trec_output(text)
    return Sample(wall=end - start, job=end - start, cpu=cpu, rss=rss, trec_per_query=per_query, summary=summary,
                  info={"output lines": text.count("\n")})


def run_timed(cmd: list[str], timeout: float) -> Sample:
    """Any command, spawn to exit, output discarded."""
    start, end, cpu, rss, error = _wait(cmd, subprocess.DEVNULL, timeout)
    if error:
        return Sample(error=error, cpu=cpu, rss=rss)
    return Sample(wall=end - start, job=end - start, cpu=cpu, rss=rss)


def irw_command() -> list[str]:
    beside = Path(sys.executable).parent / "irw"
    return [str(beside)] if beside.exists() else [sys.executable, str(ROOT / "cli.py")]


def run_cli(argv: list[str], timeout: float, parse_trec_eval: bool = False) -> Sample:
    """An irw command end to end: wall time is spawn to exit."""
    with tempfile.TemporaryFile(mode="w+b") as out:
        start, end, cpu, rss, error = _wait(irw_command() + argv, out, timeout)
        out.seek(0)
        text = out.read().decode()
    if error:
        return Sample(error=error, cpu=cpu, rss=rss)
    sample = Sample(wall=end - start, job=end - start, cpu=cpu, rss=rss, info={"output lines": text.count("\n")})
    if parse_trec_eval:
        names = {v: k for k, v in TREC_EVAL_NAMES.items()}
        per_query: dict[str, dict[str, float]] = {m: {} for m in MEASURES}
        for line in text.splitlines():
            fields = line.split()
            if len(fields) != 3:
                continue
            name, query, value = fields
            if name in names:
                if query == "all":
                    sample.means[names[name]] = float(value)
                else:
                    per_query[names[name]][query] = float(value)
        sample.per_query = per_query
    return sample


@dataclass
class Result:
    label: str
    samples: list[Sample] = field(default_factory=list)
    skipped: str | None = None

    @property
    def ok(self) -> list[Sample]:
        return [s for s in self.samples if s.error is None]

    @property
    def error(self) -> str | None:
        if self.skipped:
            return self.skipped
        if not self.ok:
            return self.samples[0].error if self.samples else "not run"
        return None

    def median(self, attr: str) -> float:
        values = [getattr(s, attr) for s in self.ok]
        return statistics.median(values) if values else math.nan

    def phase(self, name: str) -> float:
        values = [s.phases[name] for s in self.ok if name in s.phases]
        return statistics.median(values) if values else math.nan

    def phases(self) -> dict[str, float]:
        names = list(dict.fromkeys(n for s in self.ok for n in s.phases))
        return {n: self.phase(n) for n in names}

    @property
    def first(self) -> Sample | None:
        return self.ok[0] if self.ok else None

    def info(self, key: str):
        values = [s.info[key] for s in self.ok if key in s.info]
        if not values:
            return None
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            return statistics.median(values)
        return values[0]


# -- formatting ------------------------------------------------------------------------------
def _bytes_under(folder: Path) -> int:
    """The bytes of the files under folder now (0 when it does not exist)."""
    total = 0
    for parent, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(parent, name)).st_size
            except OSError:
                pass  # removed meanwhile
    return total


def secs(value: float) -> str:
    if value is None or math.isnan(value):
        return "-"
    if value < 0.01:
        return f"{value * 1000:.1f} ms"
    if value < 10:
        return f"{value:.3f} s"
    return f"{value:.1f} s"


def mem(value: float) -> str:
    if not value or math.isnan(value):
        return "-"
    if value >= 1000 * 2**20:
        return f"{value / 2**30:.2f} GB"
    return f"{value / 2**20:.0f} MB"


def times(value: float) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.2f}x"


def lines(n: int) -> str:
    return f"{n / 1e6:g}M" if n >= 1_000_000 else f"{n / 1e3:g}k"


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        widths = [max(len(str(c)), *(len(str(r[i])) for r in self.rows)) if self.rows else len(c)
                  for i, c in enumerate(self.columns)]
        out = [self.title, "=" * len(self.title)]
        out.append("  ".join(str(c).ljust(w) for c, w in zip(self.columns, widths)).rstrip())
        out.append("  ".join("-" * w for w in widths))
        for row in self.rows:
            out.append("  ".join(str(v).ljust(w) for v, w in zip(row, widths)).rstrip())
        out.extend(f"  {n}" for n in self.notes)
        return "\n".join(out) + "\n"

    def markdown(self) -> str:
        def cell(v) -> str:
            return str(v).replace("|", "\\|")
        out = [f"### {self.title}", "", "| " + " | ".join(map(cell, self.columns)) + " |",
               "|" + "|".join("---" for _ in self.columns) + "|"]
        out += ["| " + " | ".join(cell(v) for v in row) + " |" for row in self.rows]
        if self.notes:
            out.append("")
            out += [f"- {n}" for n in self.notes]
        return "\n".join(out) + "\n"


# -- the benchmark ---------------------------------------------------------------------------
class Bench:
    def __init__(self, args: argparse.Namespace, sizes: dict):
        self.args = args
        self.sizes = sizes
        self.repeats = args.repeats
        self.out = Path(args.out).resolve()
        self.work = self.out / "work"
        self.work.mkdir(parents=True, exist_ok=True)
        self.tables: list[Table] = []
        self.targets: list[list[str]] = []
        self.available: dict[str, str | None] = {}  # peer -> None, or why it is skipped
        self.ingest_base: Path | None = None
        self.leaderboard_db: Path | None = None
        self.warmed: set[str] = set()
        self.trec_eval, self.trec_eval_note = find_trec_eval(args.trec_eval)
        self.issue12_targets: list[list[str]] = []        # the targets of issue 12, for the summary in docs/performance.md
        self.shape_summary: list[tuple[str, str, dict[str, Result]]] = []
        self.run_scale_summary: dict[int, dict] = {}
        self.in_issue12 = False

    # -- helpers -----------------------------------------------------------------------------
    def emit(self, table: Table) -> None:
        self.tables.append(table)
        print(table.text(), flush=True)

    def target(self, name: str, goal: str, measured: str, met: bool | None, *, set_here: bool = True,
               issue12: bool = False) -> None:
        """set_here=False: the goal is set on the full sizes (the 7M-line MS MARCO-like run, 100
        stored runs), not on this shape or size; the number is shown for information only."""
        state = "n/a" if met is None else ("met" if met else "MISSED")
        if not set_here and met is not None:
            state = "info: the goal is set at full size"
        self.targets.append([name, goal, measured, state])
        if issue12 or self.in_issue12:
            self.issue12_targets.append([name, goal, measured, state])

    def repeat(self, jobs: dict[str, callable], note: str) -> dict[str, Result]:
        """Runs every job once per repeat, interleaved, so drifting machine load hits all alike."""
        results = {label: Result(label) for label in jobs}
        for r in range(self.repeats):
            for label, job in jobs.items():
                log(f"  [{note}] {label} (repeat {r + 1}/{self.repeats})")
                sample = job()
                results[label].samples.append(sample)
                if sample.error:
                    log(f"    failed: {sample.error}")
        return results

    def check_peers(self) -> None:
        wanted = [p for p in PEERS if not self.args.tools or p in self.args.tools]
        for peer in PEERS:
            if peer not in wanted:
                self.available[peer] = "not selected (--tools)"
            elif importlib.util.find_spec(peer) is None:
                self.available[peer] = (f"{PEER_PACKAGES[peer]} is not installed "
                                        "(pip install -e '.[bench]' installs it)")
            else:
                self.available[peer] = None
        for peer, reason in self.available.items():
            if reason and reason != "not selected (--tools)":
                log(f"skipping {peer}: {reason}")

    def peers(self) -> list[str]:
        return [p for p in PEERS if self.available.get(p) is None]

    def warm_up(self, tools: list[str]) -> None:
        """One untimed run per tool on a tiny file: fills numba's and Python's caches, so the
        timed runs see what a user's second run sees (ranx's very first run compiles its kernels
        for a minute). --quick skips it."""
        tiny = [generate.msmarco(self.out, queries=5, seed=7), generate.trec(self.out, queries=3, runs=1, seed=7)]
        for tool in tools:
            if tool in self.warmed or self.args.no_warmup or self.args.quick:
                continue
            log(f"  warming up {tool}")
            for data in tiny:  # both shapes: numba compiles again for the graded qrels
                sample = run_worker(f"files-{tool}", {"qrels": str(data.qrels), "run": str(data.run)},
                                    self.args.timeout)
                if sample.error:
                    log(f"    warm-up of {tool} failed: {sample.error}")
                    self.available[tool] = f"failed on a tiny {data.shape} file: {sample.error}"
                    break
            self.warmed.add(tool)

    @staticmethod
    def remove_db(path: Path) -> None:
        for p in (path, Path(str(path) + ".wal")):
            if p.exists():
                p.unlink()

    def copy_db(self, src: Path, dst: Path) -> Path:
        self.remove_db(dst)
        shutil.copyfile(src, dst)
        if Path(str(src) + ".wal").exists():
            shutil.copyfile(str(src) + ".wal", str(dst) + ".wal")
        return dst

    def msmarco(self, queries: int | None = None):
        data = generate.msmarco(self.out, queries or self.sizes["msmarco_queries"], self.args.seed)
        log(f"  data: {data.directory.name} ({lines(data.run_lines)} run lines, "
            f"{'reused' if data.reused else f'written in {data.seconds:.1f} s'})")
        return data

    def trec(self, runs: int = 1):
        data = generate.trec(self.out, self.sizes["trec_queries"], runs, self.args.seed)
        log(f"  data: {data.directory.name} ({len(data.runs)} runs of {lines(data.run_lines)} lines, "
            f"{'reused' if data.reused else f'written in {data.seconds:.1f} s'})")
        return data

    # -- issue 12's shapes: each tool's whole job, five measures and all_trec -------------------
    def small(self) -> None:
        self.shapes(self.sizes["shapes_small"])

    def large(self) -> None:
        self.shapes(self.sizes["shapes_large"])

    def shape_data(self, label: str, kind: str, queries: int):
        if kind == "dl19":
            qrels, run = CONFORMANCE / "qrels.dl19-passage.txt", CONFORMANCE / "runs" / "run.dl19.REP_LLAMA.txt"
            if qrels.is_file() and run.is_file():
                log(f"  data: DL19 passage qrels and the RepLLaMA run ({run}, 43k lines)")
                return generate.DataSet("dl19", CONFORMANCE, qrels, [run], 43, 43_000,
                                        extra={"source": "TREC DL 2019 passage qrels, RepLLaMA run (real files)"})
            log(f"  {CONFORMANCE} is not here: a generated TREC-like 43-query shape stands in for DL19")
            kind = "trec"
        data = generate.trec(self.out, queries, 1, self.args.seed) if kind == "trec" else \
            generate.msmarco(self.out, queries, self.args.seed)
        data.extra.setdefault("source", f"generated {kind}-like")
        log(f"  data: {data.directory.name} ({lines(data.run_lines)} run lines, "
            f"{'reused' if data.reused else f'written in {data.seconds:.1f} s'})")
        return data

    def shape_jobs(self, data, measure_set: str, role: str = "") -> dict:
        qrels, run = str(data.qrels), str(data.run)
        request = [x for m in FIVE_REQUEST for x in ("-m", m)] if measure_set == "five" else ["-m", "all_trec"]
        t = self.args.timeout
        jobs = {
            "irw trec-eval -q": lambda: run_command(irw_command() + ["trec-eval", "-q", *request, qrels, run], t),
            "irw trec-eval": lambda: run_command(irw_command() + ["trec-eval", *request, qrels, run], t),
        }
        if measure_set == "five":
            jobs["irw evaluate_files (Python)"] = lambda: run_worker("shape-evaluate_files", {"qrels": qrels, "run": run}, t)
        if self.available.get("pytrec_eval") is None:
            label = "pytrec_eval" if measure_set == "five" else "pytrec_eval (all its measures)"
            jobs[label] = lambda: run_worker("shape-pytrec_eval", {"qrels": qrels, "run": run, "set": measure_set}, t)
        if measure_set == "five" and self.available.get("ir_measures") is None:
            jobs["ir_measures"] = lambda: run_worker("shape-ir_measures", {"qrels": qrels, "run": run}, t)
        if self.trec_eval:
            jobs["trec_eval (C) -q"] = lambda: run_command([self.trec_eval, "-q", *request, qrels, run], t)
            jobs["trec_eval (C)"] = lambda: run_command([self.trec_eval, *request, qrels, run], t)
        if role == "dl19" and measure_set == "five":
            jobs[FLOOR_JOB] = lambda: run_timed([sys.executable, "-c", FLOOR_CODE], t)
        return jobs

    def shapes(self, shapes: list) -> None:
        self.warm_up(["irw", *[p for p in ("pytrec_eval", "ir_measures") if self.available.get(p) is None]])
        for label, kind, queries, role in shapes:
            data = self.shape_data(label, kind, queries)
            for measure_set in ("five", "all_trec"):
                results = self.repeat(self.shape_jobs(data, measure_set, role), f"{label} {measure_set}")
                for res in results.values():   # keep one copy of the values (the first), for the agreement
                    for sample in res.ok[1:]:
                        sample.trec_per_query = {}
                agrees, agreement = self.shape_agreement(label, data, measure_set, results)
                self.shape_table(label, kind, data, measure_set, results, agrees)
                self.emit(agreement)
                self.in_issue12 = True
                self.shape_targets(label, role, measure_set, results, agrees)
                self.in_issue12 = False
                self.shape_summary.append((label, measure_set, results))

    def shape_agreement(self, label: str, data, measure_set: str, results: dict[str, Result]):
        """Every tool's per-query values against `irw trec-eval -q`'s, on the (query, measure) pairs
        both print, within TOLERANCE (trec_eval prints 4 decimals); the summary-only runs' "all"
        lines against the -q run's of the same tool, and irw's against trec_eval (C)'s."""
        agrees: dict[str, bool] = {}
        ref = results["irw trec-eval -q"].first
        table = Table(f"Agreement: {label}, {'five measures' if measure_set == 'five' else 'all_trec'} "
                      f"(against irw trec-eval -q; within {TOLERANCE:g})",
                      ["tool", "values compared", "measures compared", "queries", "differing", "largest difference",
                       "first differences"])
        if ref is None:
            table.rows.append(["irw trec-eval -q", "failed: nothing to compare with", "", "", "", "", ""])
            return agrees, table

        def compare(mine: dict, theirs: dict) -> tuple[int, set, int, list, float]:
            compared, names, differing, worst = 0, set(), [], 0.0
            for query, values in theirs.items():
                for name, value in values.items():
                    base = mine.get(query, {}).get(name)
                    if base is None:
                        continue
                    compared += 1
                    names.add(name)
                    diff = abs(base - value)
                    if not diff <= TOLERANCE:
                        differing.append(f"{name} q{query}: {value:g} vs {base:g}")
                        worst = max(worst, diff)
            return compared, names, len(theirs), differing, worst

        for tool, res in results.items():
            sample = res.first
            if tool == "irw trec-eval -q" or sample is None:
                continue
            if sample.trec_per_query:
                compared, names, queries, differing, worst = compare(ref.trec_per_query, sample.trec_per_query)
                same_queries = set(sample.trec_per_query) == set(ref.trec_per_query)
                agrees[tool] = compared > 0 and not differing and same_queries
                note = "" if same_queries else f" (query sets differ: {queries} vs {len(ref.trec_per_query)})"
                table.rows.append([tool, f"{compared:,}", str(len(names)), f"{queries:,}{note}", str(len(differing)),
                                   f"{worst:.2e}", "; ".join(differing[:3])])
            elif sample.summary:
                peer = (results.get("irw trec-eval -q") if tool == "irw trec-eval" else
                        results.get("trec_eval (C) -q") if tool == "trec_eval (C)" else None)
                base = peer.first.summary if peer and peer.first else {}
                if tool == "trec_eval (C)" and results.get("irw trec-eval") and results["irw trec-eval"].first:
                    base = results["irw trec-eval"].first.summary   # irw's summary against trec_eval's
                names = [n for n in sample.summary if n in base]
                differing = [f"{n}: {sample.summary[n]:g} vs {base[n]:g}" for n in names
                             if not abs(sample.summary[n] - base[n]) <= TOLERANCE]
                worst = max([abs(sample.summary[n] - base[n]) for n in names] or [0.0])
                agrees[tool] = bool(names) and not differing
                against = "irw trec-eval's" if tool == "trec_eval (C)" else "its -q run's"
                table.rows.append([f"{tool} (\"all\" lines, against {against})", f"{len(names)}", str(len(names)),
                                   "all", str(len(differing)), f"{worst:.2e}", "; ".join(differing[:3])])
        # irw's summary-only run counts as agreeing when its "all" lines match its -q run's and (if
        # run) trec_eval's; trec_eval (C)'s rows say whether irw matches the C program.
        table.notes.append("pytrec_eval (all its measures) computes more than all_trec (success, Rprec_mult ...): only the "
                           "measures both print are compared; runid and relstring are not numbers and are skipped")
        return agrees, table

    def shape_table(self, label: str, kind: str, data, measure_set: str, results: dict[str, Result],
                    agrees: dict[str, bool]) -> None:
        pyt = next((r for k, r in results.items() if k.startswith("pytrec_eval") and not r.error), None)
        te = {q: results.get(f"trec_eval (C){q}") for q in (" -q", "")}
        what = f"the five measures ({', '.join(FIVE_REQUEST)})" if measure_set == "five" else "all_trec"
        table = Table(f"{label}: {data.extra.get('source', kind)}, {data.queries:,} queries, "
                      f"{lines(data.run_lines)} run lines; {what}",
                      ["tool", "wall", "x pytrec_eval", "x trec_eval (C)", "peak memory", "memory / pytrec_eval's",
                       "cpu", "agrees"])
        for tool, res in results.items():
            if res.error:
                table.rows.append([tool, f"failed: {res.error}", "", "", "", "", "", ""])
                continue
            wall, rss = res.median("wall"), res.median("rss")
            vs_pyt = pyt.median("wall") / wall if pyt else math.nan
            same_mode = te[" -q"] if (tool.endswith("-q") or tool.startswith(("pytrec", "ir_measures", "irw evaluate"))) \
                else te[""]
            vs_te = same_mode.median("wall") / wall if same_mode and not same_mode.error else math.nan
            table.rows.append([tool, secs(wall), times(vs_pyt), times(vs_te), mem(rss),
                               times(rss / pyt.median("rss")) if pyt else "-", secs(res.median("cpu")),
                               "reference" if tool == "irw trec-eval -q" else "-" if tool == FLOOR_JOB else
                               ("yes" if agrees.get(tool) else "NO")])
        table.notes.append(f"median of {self.repeats}; wall = process start to exit (CLI) or to the values in hand "
                           "(Python jobs: import, parse, evaluate); x pytrec_eval = pytrec_eval's wall / this "
                           "tool's (above 1: faster than pytrec_eval); x trec_eval (C) likewise, against trec_eval "
                           "with the same -q (per-query jobs against trec_eval -q)")
        if not self.trec_eval:
            table.notes.append(f"trec_eval (C): {self.trec_eval_note}")
        self.emit(table)

    def shape_targets(self, label: str, role: str, measure_set: str, results: dict[str, Result],
                      agrees: dict[str, bool]) -> None:
        full = label == role and not self.args.quick   # --quick's shapes and single runs: info only
        pyt = next((r for k, r in results.items() if k.startswith("pytrec_eval") and not r.error), None)
        irw = [results[k] for k in ("irw trec-eval", "irw trec-eval -q")]
        failed = [r for r in irw if r.error]
        if failed:
            self.target(f"irw trec-eval, {label}, {measure_set}", "runs", "; ".join(f"{r.label} failed: {r.error}"
                                                                               for r in failed), False)
            return
        ok_irw = all(not r.error for r in irw) and agrees.get("irw trec-eval", False)
        agree_pyt = pyt is not None and agrees.get(pyt.label, False)

        def state(met: bool) -> bool:
            return met and ok_irw

        walls = ", ".join(f"{r.label.removeprefix('irw trec-eval').strip() or 'no -q'} {secs(r.median('wall'))}"
                          for r in irw)
        if role == "dl19" and measure_set == "five":
            worst = max(r.median("wall") for r in irw)
            self.target("irw trec-eval, DL19-sized, five measures", f"<= ~{TARGETS['dl19_seconds']:g} s",
                        walls, state(worst <= TARGETS["dl19_seconds"]), set_here=full)
            if pyt:
                ratio = min(pyt.median("wall") / r.median("wall") for r in irw)
                memory = max(r.median("rss") for r in irw) / pyt.median("rss")
                self.target("irw trec-eval, DL19-sized, five measures: vs pytrec_eval's whole job",
                            f">= {TARGETS['dl19_vs_pytrec']:g}x", f"{ratio:.2f}x ({walls}; pytrec_eval "
                            f"{secs(pyt.median('wall'))})" + ("" if agree_pyt else "; values disagree"),
                            state(ratio >= TARGETS["dl19_vs_pytrec"] and agree_pyt), set_here=full)
                self.target("irw trec-eval, DL19-sized: peak memory vs pytrec_eval's", f"<= {TARGETS['dl19_memory']:g}x",
                            f"{memory:.2f}x ({mem(max(r.median('rss') for r in irw))} vs {mem(pyt.median('rss'))})",
                            state(memory <= TARGETS["dl19_memory"] and agree_pyt), set_here=full)
            floor = results.get(FLOOR_JOB)
            if floor is not None and not floor.error:
                one = results["irw trec-eval"]
                time_ratio = one.median("wall") / floor.median("wall")
                memory_ratio = one.median("rss") / floor.median("rss")
                self.target("irw trec-eval, DL19, five measures: time vs DuckDB's floor (issue 27)",
                            f"<= {TARGETS['dl19_vs_floor_time']:g}x",
                            f"{time_ratio:.2f}x ({secs(one.median('wall'))} vs {secs(floor.median('wall'))}; "
                            f"cpu {secs(one.median('cpu'))} vs {secs(floor.median('cpu'))})",
                            state(time_ratio <= TARGETS["dl19_vs_floor_time"]), set_here=full)
                self.target("irw trec-eval, DL19, five measures: peak memory vs DuckDB's floor (issue 27)",
                            f"<= {TARGETS['dl19_vs_floor_memory']:g}x",
                            f"{memory_ratio:.2f}x ({mem(one.median('rss'))} vs {mem(floor.median('rss'))})",
                            state(memory_ratio <= TARGETS["dl19_vs_floor_memory"]), set_here=full)
        if measure_set == "all_trec" and pyt and role in ("dl19", "250k", "7M"):
            goal = TARGETS["all_trec_7m"] if role == "7M" else TARGETS["all_trec_small"]
            for r in irw:
                ratio = pyt.median("wall") / r.median("wall")
                if role == "7M":
                    met = ratio >= goal
                    text = f">= {goal:g}x pytrec_eval (all its measures)"
                else:
                    met = r.median("wall") <= goal * pyt.median("wall")
                    text = f"time within {goal:g}x pytrec_eval's (all its measures)"
                self.target(f"{r.label} -m all_trec, {label}", text, f"{ratio:.2f}x ({secs(r.median('wall'))} vs "
                            f"{secs(pyt.median('wall'))})" + ("" if agree_pyt else "; values disagree"),
                            state(met and agree_pyt), set_here=full and role in ("dl19", "7M"))
        if role in ("2M", "7M"):
            for r in irw:
                te = results.get("trec_eval (C) -q" if r.label.endswith("-q") else "trec_eval (C)")
                name = f"{r.label}, {label}, {'five measures' if measure_set == 'five' else 'all_trec'}: vs trec_eval (C)"
                if te is None or te.error:
                    self.target(name, "faster", f"trec_eval (C): {te.error if te else self.trec_eval_note}", None)
                    continue
                ratio = te.median("wall") / r.median("wall")
                self.target(name, "faster", f"{ratio:.2f}x ({secs(r.median('wall'))} vs {secs(te.median('wall'))})"
                            + ("" if agrees.get(te.label) else "; values disagree"),
                            state(ratio > 1 and agrees.get(te.label, False)), set_here=full)

    # -- files to numbers --------------------------------------------------------------------
    def files(self) -> None:
        self.warm_up(["irw", *self.peers()])
        shapes = [("msmarco", self.msmarco()), ("trec", self.trec())]
        for shape, data in shapes:
            args = {"qrels": str(data.qrels), "run": str(data.run)}
            jobs = {"irw": lambda: run_worker("files-irw", args, self.args.timeout),
                    "irw trec-eval (CLI)": lambda: run_cli(
                        ["trec-eval", "-q", *[x for m in TREC_EVAL_REQUEST for x in ("-m", m)],
                         str(data.qrels), str(data.run)], self.args.timeout, parse_trec_eval=True)}
            for peer in self.peers():
                jobs[peer] = (lambda p: lambda: run_worker(f"files-{p}", args, self.args.timeout))(peer)
            results = self.repeat(jobs, f"files {shape}")
            for peer, reason in self.available.items():
                if reason and reason != "not selected (--tools)":
                    results[peer] = Result(peer, skipped=reason)
            agrees, agreement = self.agreement_table(shape, data, results)
            self.files_table(shape, data, results, agrees)
            if agreement is not None:
                self.emit(agreement)

    def files_table(self, shape: str, data, results: dict[str, Result], agrees: dict[str, bool]) -> None:
        """agrees: peer -> its numbers agree with irw's (agreement_table); a speed or memory target
        against a peer is met only when they do: being faster at different numbers proves nothing."""
        irw = results["irw"]
        base = irw.median("wall")
        table = Table(f"Files to numbers: {shape} ({data.queries:,} queries, {lines(data.run_lines)} run lines, "
                      f"{len(MEASURES)} measures, per-query values and means)",
                      ["tool", "wall", "time / irw's", "in-process job", "import", "cpu", "peak memory",
                       "memory / irw's", "phases"])
        for label, res in results.items():
            if res.error:
                table.rows.append([label, f"skipped: {res.error}" if res.skipped else f"failed: {res.error}",
                                   "", "", "", "", "", "", ""])
                continue
            phases = ", ".join(f"{k} {secs(v)}" for k, v in res.phases().items() if k not in ("import", "results"))
            table.rows.append([label, secs(res.median("wall")), times(res.median("wall") / base),
                               secs(res.median("job")), secs(res.phase("import")), secs(res.median("cpu")),
                               mem(res.median("rss")), times(res.median("rss") / irw.median("rss")), phases])
        table.notes.append(f"median of {self.repeats}; wall = process start to per-query values and means in "
                           "hand (interpreter start and imports included); time / irw's > 1 means irw is faster")
        self.emit(table)
        if not irw.error:
            set_here = shape == "msmarco" and data.run_lines == FULL_RUN_LINES
            for peer, goal_key in (("pytrec_eval", "files_pytrec_eval"), ("ranx", "files_ranx")):
                res = results.get(peer)
                if res is None or res.error:
                    self.target(f"files to numbers, {shape}: vs {peer}", f">= {TARGETS[goal_key]:g}x faster",
                                f"{peer}: {res.error if res else 'not run'}", None)
                    continue
                ratio = res.median("wall") / base
                self.target(f"files to numbers, {shape}: vs {peer}", f">= {TARGETS[goal_key]:g}x faster",
                            f"{ratio:.2f}x ({secs(base)} vs {secs(res.median('wall'))})"
                            + ("" if agrees.get(peer) else "; the numbers disagree (see Agreement)"),
                            ratio >= TARGETS[goal_key] and agrees.get(peer, False), set_here=set_here)
            # issue 12's goals on the benchmark's measures: 250k (TREC-like) >= 1.2x, 7M >= 2.28x pytrec_eval
            res = results.get("pytrec_eval")
            goal_key = "files_250k" if shape == "trec" else "files_7m"
            if res is not None and not res.error:
                ratio = res.median("wall") / base
                full_size = data.queries == FULL["trec_queries"] if shape == "trec" else data.run_lines == FULL_RUN_LINES
                self.target(f"evaluate_files, {shape} ({lines(data.run_lines)} lines): vs pytrec_eval (issue 12)",
                            f">= {TARGETS[goal_key]:g}x", f"{ratio:.2f}x ({secs(base)} vs {secs(res.median('wall'))})"
                            + ("" if agrees.get("pytrec_eval") else "; the numbers disagree (see Agreement)"),
                            ratio >= TARGETS[goal_key] and agrees.get("pytrec_eval", False), set_here=full_size,
                            issue12=True)
            for peer in PEERS:
                res = results.get(peer)
                if res is None or res.error:
                    continue
                self.target(f"peak memory, {shape}: vs {peer}", "below the peer's",
                            f"{mem(irw.median('rss'))} vs {mem(res.median('rss'))}"
                            + ("" if agrees.get(peer) else "; the numbers disagree (see Agreement)"),
                            irw.median("rss") < res.median("rss") and agrees.get(peer, False), set_here=set_here)

    def tie_sensitive_queries(self, data) -> set[str]:
        """Queries where a relevant document shares its (float32) score with another retrieved
        document: the only place where tie-breaking can change a number."""
        import duckdb
        con = duckdb.connect()
        rows = con.execute("""
            with run as (
                select column0 as q, column2 as d, cast(column4 as float) as s
                from read_csv(?, delim = ' ', header = false, all_varchar = true, auto_detect = false,
                              columns = {'column0': 'VARCHAR', 'column1': 'VARCHAR', 'column2': 'VARCHAR',
                                         'column3': 'VARCHAR', 'column4': 'VARCHAR', 'column5': 'VARCHAR'})
            ),
            rel as (
                select column0 as q, column2 as d
                from read_csv(?, delim = ' ', header = false, auto_detect = false,
                              columns = {'column0': 'VARCHAR', 'column1': 'VARCHAR', 'column2': 'VARCHAR',
                                         'column3': 'INTEGER'})
                where column3 >= 1
            ),
            tied as (select q, s from run group by q, s having count(*) > 1)
            select distinct run.q from run join rel using (q, d) join tied using (q, s)
        """, [str(data.run), str(data.qrels)]).fetchall()
        con.close()
        return {r[0] for r in rows}

    def agreement_table(self, shape: str, data, results: dict[str, Result]) -> tuple[dict[str, bool], "Table | None"]:
        """The agreement table, and tool -> whether its means agree within TOLERANCE and every
        per-query difference is explained by ties (the only place tools may differ)."""
        agrees: dict[str, bool] = {}
        ref = results["irw"].first
        if ref is None:
            return agrees, None
        tie_queries = self.tie_sensitive_queries(data)
        table = Table(f"Agreement with irw: {shape} (means within {TOLERANCE:g}; per-query values compared too)",
                      ["tool", "measure", "mean (tool)", "mean (irw)", "difference", "queries differing",
                       "of them with tied relevant docs"])
        summary = []
        for label, res in results.items():
            sample = res.first
            if label == "irw" or sample is None:
                continue
            worst = 0.0
            differing_total = 0
            unexplained_total = 0
            for m in MEASURES:
                mine, theirs = ref.means.get(m, math.nan), sample.means.get(m, math.nan)
                diff = theirs - mine
                ref_q, tool_q = ref.per_query.get(m, {}), sample.per_query.get(m, {})
                differing = [q for q in set(ref_q) | set(tool_q)
                             if not abs(tool_q.get(q, math.inf) - ref_q.get(q, math.inf)) <= TOLERANCE]
                tied = sum(1 for q in differing if q in tie_queries)
                differing_total += len(differing)
                unexplained_total += len(differing) - tied
                if not abs(diff) <= TOLERANCE or differing:
                    table.rows.append([label, m, f"{theirs:.6f}", f"{mine:.6f}", f"{diff:+.2e}",
                                       f"{len(differing)} of {len(ref_q)}", str(tied)])
                worst = max(worst, abs(diff)) if not math.isnan(diff) else math.inf
            agrees[label] = worst <= TOLERANCE and unexplained_total == 0
            verdict = "agrees" if worst <= TOLERANCE else f"differs: largest mean difference {worst:.2e}"
            if differing_total:
                verdict += (f"; {differing_total} per-query values differ, "
                            + ("all in queries where a relevant document is tied"
                               if unexplained_total == 0 else f"{unexplained_total} of them NOT explained by ties"))
            provider = sample.info.get("provider")
            summary.append(f"{label}{f' (computed by {provider})' if provider else ''}: {verdict}")
        if not table.rows:
            table.rows.append(["every tool", "every measure", "", "", "0", "0", ""])
        table.notes.extend(summary)
        table.notes.append(f"{len(tie_queries)} of {data.queries} queries have a relevant document tied with "
                           "another; trec_eval (and irw, pytrec_eval, ir_measures through it) orders ties by "
                           "docid descending, ranx by numpy's unstable argsort")
        return agrees, table

    # -- ingest ------------------------------------------------------------------------------
    def ingest(self) -> None:
        data = self.msmarco()
        db = self.work / "ingest.duckdb"

        def ingest_job() -> Sample:
            self.remove_db(db)
            return run_worker("ingest-irw", {"db": str(db), "run": str(data.run), "qrels": str(data.qrels)},
                              self.args.timeout)

        results = self.repeat({
            "irw ingest_run (file warehouse)": ingest_job,
            "DuckDB count(*) over read_csv": lambda: run_worker("count-lines-duckdb", {"run": str(data.run)},
                                                                 self.args.timeout),
            "DuckDB reading the six fields as text": lambda: run_worker(
                "read-columns-duckdb", {"run": str(data.run)}, self.args.timeout),
        }, "ingest")
        ingest_res, count_res, _ = results.values()
        if not ingest_res.error:
            self.ingest_base = self.copy_db(db, self.work / "ingest-base.duckdb")
        table = Table(f"Ingest: one {lines(data.run_lines)}-line run into a file warehouse",
                      ["job", "in-process time", "/ counting lines", "wall", "cpu", "peak memory", "detail"])
        count = count_res.median("job")
        for label, res in results.items():
            if res.error:
                table.rows.append([label, f"failed: {res.error}", "", "", "", "", ""])
                continue
            detail = ", ".join(f"{k} {secs(v)}" for k, v in res.phases().items())
            if res.info("warehouse MB") is not None:
                detail += f"; warehouse {res.info('warehouse MB'):.0f} MB"
            table.rows.append([label, secs(res.median("job")), times(res.median("job") / count),
                               secs(res.median("wall")), secs(res.median("cpu")), mem(res.median("rss")), detail])
        table.notes.append("ingest time = ingest_run (read, split, validate, rank, insert in one transaction) "
                           "plus closing the warehouse; the qrels were ingested first, untimed")
        table.notes.append("reading the six fields as text (into a temporary table, no checks) is the least an "
                           "ingest that validates every field must do")
        self.emit(table)
        if not ingest_res.error and not count_res.error:
            ratio = ingest_res.median("job") / count
            self.target("ingest of a 7M-line run" if data.run_lines == 7_000_000 else
                        f"ingest of a {lines(data.run_lines)}-line run", f"<= {TARGETS['ingest_vs_count']:g}x "
                        "DuckDB counting its lines", f"{ratio:.2f}x ({secs(ingest_res.median('job'))} vs "
                        f"{secs(count)})", ratio <= TARGETS["ingest_vs_count"],
                        set_here=data.run_lines == FULL_RUN_LINES)

    # -- evaluate a stored run ---------------------------------------------------------------
    def evaluate(self) -> None:
        data = self.msmarco()
        if self.ingest_base is None:
            log("  set-up: ingesting the run once (the ingest section was not run)")
            db = self.work / "ingest.duckdb"
            self.remove_db(db)
            sample = run_worker("ingest-irw", {"db": str(db), "run": str(data.run), "qrels": str(data.qrels)},
                                self.args.timeout)
            if sample.error:
                self.emit(Table("Evaluate a stored run", ["job", "result"], [["set-up", f"failed: {sample.error}"]]))
                return
            self.ingest_base = self.copy_db(db, self.work / "ingest-base.duckdb")
        work = self.work / "evaluate.duckdb"
        args = {"qrels": str(data.qrels), "run": str(data.run)}
        jobs = {"irw: evaluate a stored run": lambda: run_worker(
            "evaluate-stored", {"db": str(self.copy_db(self.ingest_base, work))}, self.args.timeout)}
        if self.available.get("pytrec_eval") is None:
            jobs["pytrec_eval: evaluate() on parsed dicts"] = lambda: run_worker(
                "pytrec_eval-evaluate-only", args, self.args.timeout)
        results = self.repeat(jobs, "evaluate")
        irw = results["irw: evaluate a stored run"]
        table = Table(f"Evaluate a stored run: {lines(data.run_lines)} lines, {len(MEASURES)} measures, per-query "
                      "values", ["job", "time", "pytrec_eval's / this", "peak memory (process)", "detail"])
        pyt = results.get("pytrec_eval: evaluate() on parsed dicts")
        for label, res in results.items():
            if res.error:
                table.rows.append([label, f"failed: {res.error}", "", "", ""])
                continue
            detail = "; ".join(f"{k} {secs(v) if 'seconds' in k else v}" for k, v in
                               ((k, res.info(k)) for k in (res.first.info if res.first else {})))
            ratio = pyt.median("job") / res.median("job") if pyt and not pyt.error else math.nan
            table.rows.append([label, secs(res.median("job")), times(ratio), mem(res.median("rss")), detail])
        if pyt is None:
            table.notes.append(f"pytrec_eval skipped: {self.available.get('pytrec_eval')}")
        table.notes.append("irw: Warehouse.evaluate on a run ingested earlier, first call (computes and stores the "
                           "scores); pytrec_eval: RelevanceEvaluator.evaluate(run) alone, files already parsed "
                           "and the evaluator built (both untimed); memory is the whole process, parsing included")
        self.emit(table)
        if not irw.error:
            if pyt and not pyt.error:
                ratio = pyt.median("job") / irw.median("job")
                self.target("evaluate a stored run", f">= {TARGETS['stored_vs_pytrec']:g}x faster than "
                            "pytrec_eval's evaluate()", f"{ratio:.2f}x ({secs(irw.median('job'))} vs "
                            f"{secs(pyt.median('job'))})", ratio >= TARGETS["stored_vs_pytrec"],
                            set_here=data.run_lines == FULL_RUN_LINES)
            else:
                self.target("evaluate a stored run", f">= {TARGETS['stored_vs_pytrec']:g}x faster than "
                            "pytrec_eval's evaluate()", "pytrec_eval not run", None)

    # -- leaderboard -------------------------------------------------------------------------
    def leaderboard(self, report: bool = True) -> None:
        n = self.sizes["leaderboard_runs"]
        data = self.trec(runs=n + 1)
        base = self.work / "leaderboard-base.duckdb"
        self.remove_db(base)
        log(f"  set-up: ingesting qrels and {n} runs")
        setup = run_worker("leaderboard-ingest", {"db": str(base), "qrels": str(data.qrels),
                                                   "runs": [str(p) for p in data.runs[:n]]}, self.args.timeout)
        if setup.error:
            self.emit(Table("Leaderboard", ["job", "result"], [["set-up", f"failed: {setup.error}"]]))
            return
        work = self.work / "leaderboard.duckdb"
        measure_args = [x for m in MEASURES for x in ("-m", m)]
        cold, incremental, cli = Result(f"cold: evaluate all {n} runs"), \
            Result(f"incremental: add 1 run, evaluate all {n + 1}"), \
            Result(f"irw eval (CLI): all {n + 1}, every score stored")
        for r in range(self.repeats if report else 1):
            log(f"  [leaderboard] cold, incremental, CLI (repeat {r + 1}/{self.repeats if report else 1})")
            self.copy_db(base, work)
            cold.samples.append(run_worker("leaderboard-cold", {"db": str(work)}, self.args.timeout))
            if cold.samples[-1].error:
                log(f"    failed: {cold.samples[-1].error}")
                continue
            incremental.samples.append(run_worker("leaderboard-incremental",
                                                  {"db": str(work), "new_run": str(data.runs[n])},
                                                  self.args.timeout))
            if not report:
                break
            cli.samples.append(run_cli(["eval", "--db", str(work), "--qrels", "qrels", *measure_args],
                                       self.args.timeout))
        self.leaderboard_db = work if incremental.ok else None
        if not report:
            return
        table = Table(f"Leaderboard over stored TREC-like runs ({data.queries} queries, {lines(data.run_lines)} "
                      f"lines each, {len(MEASURES)} measures)", ["job", "time", "wall", "peak memory", "detail"])
        setup_runs = setup.phases.get("ingest runs", math.nan)
        table.rows.append([f"set-up: ingest qrels + {n} runs (once)", secs(setup.job), secs(setup.wall),
                           mem(setup.rss), f"{secs(setup_runs / n)} per run"])
        for res in (cold, incremental, cli):
            if res.error:
                table.rows.append([res.label, f"failed: {res.error}", "", "", ""])
                continue
            keys = list(res.first.info)
            detail = "; ".join(f"{k}: {secs(res.info(k)) if 'seconds' in k else res.info(k)}" for k in keys)
            table.rows.append([res.label, secs(res.median("job")), secs(res.median("wall")),
                               mem(res.median("rss")), detail])
        table.notes.append("time = Warehouse.evaluate(every run, qrels, measures) in a process that has the "
                           "warehouse open; wall adds start-up; the CLI row is spawn to exit")
        self.emit(table)
        if not incremental.error:
            t = incremental.median("job")
            only_new = incremental.info("old runs recomputed") == 0 and incremental.info("new run computed")
            self.target(f"leaderboard over {n} stored runs, incremental", f"< {TARGETS['incremental_seconds']:g} s, "
                        "only the new run computed", f"{secs(t)}; old runs recomputed: "
                        f"{incremental.info('old runs recomputed')}", t < TARGETS["incremental_seconds"] and only_new,
                        set_here=n == FULL["leaderboard_runs"])

    # -- SQL over stored scores --------------------------------------------------------------
    SQL = ("select r.name as run, avg(s.value) as ap, count(*) as queries "
           "from scores s join runs r on r.run_id = s.run_id "
           "where s.measure = 'AP' group by r.name order by ap desc, run")

    def sql(self) -> None:
        if self.leaderboard_db is None:
            log("  set-up: the leaderboard warehouse (the leaderboard section was not run)")
            self.leaderboard(report=False)
        if self.leaderboard_db is None:
            self.emit(Table("irw sql over stored scores", ["job", "result"], [["set-up", "failed"]]))
            return
        db = str(self.leaderboard_db)
        results = self.repeat({
            "irw sql (CLI)": lambda: run_cli(["sql", "--db", db, "--format", "tsv", self.SQL], self.args.timeout),
            "Warehouse.sql (in process)": lambda: run_worker("sql-in-process", {"db": db, "query": self.SQL},
                                                             self.args.timeout),
        }, "sql")
        table = Table(f"irw sql over the scores of {self.sizes['leaderboard_runs'] + 1} runs: mean AP per run",
                      ["job", "time", "wall", "peak memory", "detail"])
        for label, res in results.items():
            if res.error:
                table.rows.append([label, f"failed: {res.error}", "", "", ""])
                continue
            detail = "; ".join(f"{k}: {res.info(k)}" for k in (res.first.info if res.first else {}))
            table.rows.append([label, secs(res.median("job")), secs(res.median("wall")), mem(res.median("rss")),
                               detail])
        table.notes.append(f"query: {self.SQL}")
        self.emit(table)

    # -- scaling -----------------------------------------------------------------------------
    def scaling(self) -> None:
        tools = [t for t in self.args.scaling_tools if t == "irw" or self.available.get(t) is None]
        self.warm_up(tools)
        rows: dict[str, list[tuple[int, Result]]] = {}
        for n in self.sizes["scaling_lines"]:
            data = self.msmarco(max(1, n // generate.DOCS_PER_QUERY))
            args = {"qrels": str(data.qrels), "run": str(data.run)}
            db = self.work / "scaling.duckdb"

            def ingest_job() -> Sample:
                self.remove_db(db)
                return run_worker("ingest-irw", {"db": str(db), "run": str(data.run)}, self.args.timeout)

            jobs = {f"{t}: files to numbers": (lambda t: lambda: run_worker(f"files-{t}", args, self.args.timeout))(t)
                    for t in tools}
            jobs["irw: ingest into a file warehouse"] = ingest_job
            for label, res in self.repeat(jobs, f"scaling {lines(data.run_lines)}").items():
                rows.setdefault(label, []).append((data.run_lines, res))
            self.remove_db(db)
        table = Table("Scaling: MS MARCO-like runs of growing size",
                      ["job", "run lines", "time", "per million lines", "peak memory", "growth vs previous size"])
        for label, points in rows.items():
            previous = None
            for n, res in points:
                if res.error:
                    table.rows.append([label, lines(n), f"failed: {res.error}", "", "", ""])
                    previous = None
                    continue
                t = res.median("wall") if "files" in label else res.median("job")
                growth = ""
                if previous:
                    pn, pt, pm = previous
                    growth = (f"lines x{n / pn:g}: time x{t / pt:.2f}, memory x{res.median('rss') / pm:.2f} "
                              f"(time ~ lines^{math.log(t / pt) / math.log(n / pn):.2f})")
                table.rows.append([label, lines(n), secs(t), secs(t / n * 1e6), mem(res.median("rss")), growth])
                previous = (n, t, res.median("rss"))
        table.notes.append("files to numbers: wall time, process start to means; ingest: ingest_run + close, in "
                           "process; exponent 1.00 is linear")
        self.emit(table)

    # -- many runs: the scaling line of stored runs ----------------------------------------------
    def many_runs(self) -> None:
        """A warehouse of N TREC-like runs of 5,000 lines (benchmarks/many_runs.py writes the data
        and names the runs and systems), for N on the scaling line: ingest, size on disk, irw eval
        (cold and stored), the leaderboard page cold and after one more run (fixed --baseline),
        history, and irw sql over every stored score. Each command in its own process."""
        try:
            import many_runs
        except ImportError as exc:
            self.emit(Table("Many runs", ["job", "result"], [["import benchmarks/many_runs.py", f"failed: {exc}"]]))
            return
        scale = [n for n in self.sizes["run_scale"] if n <= self.args.scale_max] if not self.args.quick \
            else self.sizes["run_scale"]
        if not self.args.quick and self.args.scale_max >= 10000 and 10000 not in scale:
            scale.append(10000)
        t = self.args.timeout
        irw = irw_command()
        measures = [x for m in many_runs.MEASURES for x in ("-m", m)]
        sql = ("select r.name as run, s.measure, avg(s.value) as mean, count(*) as queries from scores s "
               "join runs r on r.run_id = s.run_id group by r.name, s.measure order by r.name, s.measure")
        columns: dict[int, dict[str, Result | str]] = {}
        for n in scale:
            started = time.monotonic()
            log(f"  [many runs] {n} runs: data")
            qrels, paths = many_runs.data(self.out, n + 1)
            base = self.work / f"many-{n}-base.duckdb"
            self.remove_db(base)
            log(f"  [many runs] {n} runs: building the warehouse (qrels + {n} runs, each ingest timed)")
            build = run_worker("many-runs-build", {"db": str(base), "data_root": str(self.out), "runs": n,
                                                    "qrels": str(qrels)}, t)
            cells: dict[str, Result | str] = {"build": Result("build", [build])}
            columns[n] = cells
            if build.error:
                log(f"    failed: {build.error}")
                continue
            cells["size"] = mem(self.db_size(base))
            common = ["--qrels", "q"]
            site = self.work / f"many-{n}-site"
            new_run = paths[n]
            for r in range(self.repeats if n <= 1000 else 1):
                if r and time.monotonic() - repeat_started > REPEAT_CAP:
                    log(f"  [many runs] {n} runs: one repeat took {time.monotonic() - repeat_started:.0f} s: "
                        f"no more repeats at this size")
                    cells["repeats"] = str(r)
                    break
                repeat_started = time.monotonic()
                log(f"  [many runs] {n} runs: eval, leaderboard, history, sql (repeat {r + 1})")
                db = str(self.copy_db(base, self.work / "many-eval.duckdb"))
                for label, argv in (("irw eval: every run, cold", ["eval", "--db", db, *common, *measures, "-f", "tsv"]),
                                    ("irw eval: every run, stored", ["eval", "--db", db, *common, *measures, "-f", "tsv"])):
                    cells.setdefault(label, Result(label)).samples.append(run_timed(irw + argv, t))
                self.remove_db(Path(db))
                db = str(self.copy_db(base, self.work / "many-board.duckdb"))
                if site.exists():
                    shutil.rmtree(site)
                board = ["report", "leaderboard", "--db", db, *common, "--baseline", many_runs.BASELINE,
                         "-o", str(site / "board.html")]
                steps = [
                    ("leaderboard: cold (page and run pages)", board),
                    ("irw ingest run: one more run", ["ingest", "run", "--db", db, "--name", many_runs.run_name(n),
                                                      "--system", many_runs.system_name(n), str(new_run)]),
                    ("leaderboard: incremental (one run added)", board),
                    ("history (AP)", ["report", "history", "--db", db, *common, "-m", "AP",
                                      "-o", str(site / "history.html")]),
                    ("irw sql: mean of every stored score per run and measure", ["sql", "--db", db, "-f", "tsv", sql]),
                ]
                for label, argv in steps:
                    sample = run_timed(irw + argv, t)
                    cells.setdefault(label, Result(label)).samples.append(sample)
                    if sample.error:
                        log(f"    {label} failed: {sample.error}")
                cells["size after"] = mem(self.db_size(Path(db)))
            if site.exists():
                shutil.rmtree(site)
            self.remove_db(self.work / "many-board.duckdb")
            self.remove_db(base)
            log(f"  [many runs] {n} runs done in {time.monotonic() - started:.0f} s")
        self.many_runs_table(columns)
        self.in_issue12 = True
        self.many_runs_targets(columns)
        self.in_issue12 = False
        self.run_scale_summary = columns

    @staticmethod
    def db_size(path: Path) -> int:
        return sum(p.stat().st_size for p in (path, Path(str(path) + ".wal")) if p.exists())

    def many_runs_table(self, columns: dict) -> None:
        scale = list(columns)
        table = Table(f"Many runs: {', '.join(f'{n:,}' for n in scale)} stored TREC-like runs (50 queries x 100 "
                      "documents = 5,000 lines each; 3 measures: AP, nDCG@10, P@10)",
                      ["job", *[f"{n:,} runs" for n in scale]])

        def build_cell(n: int, key: str) -> str:
            res = columns[n].get("build")
            if not isinstance(res, Result) or res.error:
                return f"failed: {res.error}" if isinstance(res, Result) else "-"
            value = res.info(key)
            return secs(value) if value is not None else "-"

        table.rows.append(["ingest, per run (median; Warehouse.ingest_run)", *[build_cell(n, "per run, median") for n in scale]])
        table.rows.append(["ingest, per run: first tenth / last tenth of the runs",
                           *[f"{build_cell(n, 'per run, first tenth')} / {build_cell(n, 'per run, last tenth')}"
                             for n in scale]])
        table.rows.append(["build: qrels + every run, one process (time, peak memory)",
                           *[(f"{secs(columns[n]['build'].median('job'))}, {mem(columns[n]['build'].median('rss'))}"
                              if not columns[n]["build"].error else "-") for n in scale]])
        table.rows.append(["size on disk: after ingest", *[columns[n].get("size", "-") for n in scale]])
        table.rows.append(["size on disk: after the leaderboard, history and the added run",
                           *[columns[n].get("size after", "-") for n in scale]])
        labels = list(dict.fromkeys(k for n in scale for k, v in columns[n].items() if isinstance(v, Result)
                                    and k != "build"))
        for label in labels:
            row = [label]
            for n in scale:
                res = columns[n].get(label)
                if not isinstance(res, Result):
                    row.append("-")
                elif res.error:
                    row.append(f"failed: {res.error}")
                else:
                    row.append(f"{secs(res.median('wall'))}, {mem(res.median('rss'))}")
            table.rows.append(row)
        capped = [f"{n:,} runs: {columns[n]['repeats']}" for n in scale if "repeats" in columns[n]]
        table.notes.append(f"time, peak memory: each command in its own process, spawn to exit (median of "
                           f"{self.repeats} up to 1,000 runs, one run at 10,000; fewer where one repeat took over "
                           f"{REPEAT_CAP} s{': ' + ', '.join(capped) if capped else ''}); the leaderboard writes its page "
                           "and every run's page, with --baseline fixed; incremental = the same command after "
                           "`irw ingest run` added one run, the first call's pages on disk")
        table.notes.append("eval, cold: a copy of the warehouse as ingested (no score stored); stored: the same command "
                           "again. The leaderboard runs on another copy, so its cold call computes every score")
        self.emit(table)

    def many_runs_targets(self, columns: dict) -> None:
        key = "leaderboard: incremental (one run added)"

        def res(n: int) -> Result | None:
            r = columns.get(n, {}).get(key)
            return r if isinstance(r, Result) and not r.error else None

        small, large = (10, 1000) if not self.args.quick else (self.sizes["run_scale"][0], self.sizes["run_scale"][-1])
        a, b = res(small), res(large)
        set_here = not self.args.quick
        if a and b:
            ratio = b.median("wall") / a.median("wall")
            self.target(f"leaderboard incremental over {large + 1:,} runs vs {small + 1} runs",
                        f"<= {TARGETS['many_runs_ratio']:g}x", f"{ratio:.2f}x ({secs(b.median('wall'))} vs "
                        f"{secs(a.median('wall'))})", ratio <= TARGETS["many_runs_ratio"], set_here=set_here)
        else:
            self.target(f"leaderboard incremental over {large + 1:,} runs vs {small + 1} runs",
                        f"<= {TARGETS['many_runs_ratio']:g}x", "not run (or failed)", None)
        if b:
            self.target(f"leaderboard incremental over {large + 1:,} runs: peak memory", "< 1 GB",
                        mem(b.median("rss")), b.median("rss") < TARGETS["many_runs_memory"], set_here=set_here)

    # -- many collections (issue 23): benchmarks/many_collections.py -----------------------------
    def collections(self) -> None:
        import many_collections
        many_collections.section(self, sys.modules[__name__])

    # -- a whole track in one trec-eval call (issue 27, target 3): benchmarks/track.py ------------
    def track(self) -> None:
        import track
        track.section(self, sys.modules[__name__])

    # -- a served leaderboard over 10,000 runs (issue 26): benchmarks/serve_scale.py ----------------
    def serve(self) -> None:
        import serve_scale
        serve_scale.section(self, sys.modules[__name__])

    # -- compressed bombs (issue 24) -------------------------------------------------------------
    # decompressed sizes: 10x the issue's (300 MB of bad lines in a 1.3 MB gzip; 3 GB of duplicate
    # lines in a 17 MB gzip, and in a 436 KB .xz); --quick: 100 MB each
    BOMB_MB, BIG_BOMB_MB = 3_000, 30_000
    LATE_AFTER = 20_000  # the clean lines heading a "clean head" bomb

    def bombs(self) -> None:
        """Peak memory, and the most bytes in $TMPDIR and in the warehouse's spill folder while it
        runs, of `irw ingest run` on small compressed files of many bad lines (each line a
        problem), one per compression irw reads, and on ones of duplicate lines, under irw's
        default memory limit: the bound docs/promises.md states (DuckDB's IRW_MEMORY_LIMIT plus the interpreter,
        nothing decompressed on disk) must hold. Each bomb is one compressed block repeated
        (gzip members, zstd frames, bz2 and xz streams, all read as one file), so a 30 GB one is
        written in seconds."""
        import bz2
        import gzip
        import lzma

        import zstandard

        compress = {".gz": lambda data: gzip.compress(data, 9),
                    ".zst": lambda data: zstandard.ZstdCompressor(level=19).compress(data),
                    ".bz2": lambda data: bz2.compress(data, 9), ".xz": lzma.compress}
        block_lines = 1 << 21
        bad, duplicate = b"q 0 d x\n", b"q1 Q0 d1 1 1.0 t\n"  # each line a problem; each after the first one
        small, big = (100, 100) if self.args.quick else (self.BOMB_MB, self.BIG_BOMB_MB)
        # a clean head: 20,000 valid run lines of the duplicate line's tag, none its (query, doc), so
        # the first problem is line 20,001 (bad lines) or 20,002 (duplicates), past the head check
        clean = b"".join(b"q%d Q0 d%d %d %d t\n" % (i // 100, i, i % 100 + 1, 1000 - i % 100)
                         for i in range(self.LATE_AFTER))
        bombs = [(f"bad lines{suffix}", f"bad.run{suffix}", bad, small, suffix, b"") for suffix in compress]
        bombs += [("duplicate lines.gz", "duplicates.run.gz", duplicate, big, ".gz", b""),
                  ("duplicate lines.xz", "duplicates.run.xz", duplicate, big, ".xz", b"")]
        bombs += [(f"clean head, bad lines{suffix}", f"late-bad.run{suffix}", bad, small, suffix, clean)
                  for suffix in compress]
        bombs += [("clean head, duplicate lines.gz", "late-duplicates.run.gz", duplicate, big, ".gz", clean),
                  ("clean head, duplicate lines.xz", "late-duplicates.run.xz", duplicate, big, ".xz", clean)]
        folder = self.work / "bombs"
        folder.mkdir(exist_ok=True)
        table = Table("Compressed bombs: irw ingest run (default memory limit)",
                      ["file", "decompressed", "size", "time", "peak memory", "most in $TMPDIR",
                       "most in W.tmp", "exit", "the message's last line"])
        for label, name, line, megabytes, suffix, head in bombs:
            block = compress[suffix](line * block_lines)
            copies = max(1, round(megabytes * 1e6 / (len(line) * block_lines)))
            path = folder / name
            with path.open("wb") as out:
                if head:
                    out.write(compress[suffix](head))
                for _ in range(copies):
                    out.write(block)
            db, temp = folder / "bomb.duckdb", folder / "tmp"
            self.remove_db(db)
            shutil.rmtree(temp, ignore_errors=True)
            temp.mkdir()
            most = {"tmp": 0, "spill": 0}
            done = threading.Event()

            def watch() -> None:
                while not done.wait(0.01):
                    most["tmp"] = max(most["tmp"], _bytes_under(temp))
                    most["spill"] = max(most["spill"], _bytes_under(Path(str(db) + ".tmp")))

            watcher = threading.Thread(target=watch, daemon=True)
            watcher.start()
            try:
                start, end, _cpu, rss, message = _wait(
                    ["env", f"TMPDIR={temp}", *irw_command(), "ingest", "run", str(path), "--db", str(db)],
                    subprocess.DEVNULL, self.args.timeout)
            finally:
                done.set()
                watcher.join()
            left = _bytes_under(temp) + sum(1 for _ in temp.iterdir())
            exit_text = "0" if not message else message.split(":")[0].removeprefix("exit ")
            last = message.split(" | ")[-1].removeprefix("Error: ")[:70] if message else ""
            table.rows.append([label, f"{copies * len(line) * block_lines / 1e9:.1f} GB", f"{path.stat().st_size / 1e6:.2f} MB",
                               secs(end - start), mem(rss), f"{most['tmp']:,} B" + (" (left behind)" if left else ""),
                               f"{most['spill']:,} B", exit_text, last])
            self.remove_db(db)
            shutil.rmtree(temp, ignore_errors=True)
            path.unlink()
        table.notes.append("each bomb is refused (exit 1, its first bad lines named); peak memory is the whole "
                           "process's, DuckDB's share capped by IRW_MEMORY_LIMIT (default 4 GiB, or half the machine's "
                           "memory if less); $TMPDIR and the warehouse's spill folder W.tmp are polled every 10 ms "
                           "(.bz2 and .xz reach DuckDB through FIFOs there, which hold no bytes)")
        table.notes.append("a file refused by its first 10,000 lines is judged by its first 4 MiB: the thread that "
                           "checks a .gz or .zst file's data (CRCs, truncation) stops there, as the pipes of .bz2 "
                           "and .xz do, so no bomb is read whole")
        table.notes.append(f"clean head: the same bomb after {self.LATE_AFTER:,} valid lines, so the head check passes "
                           "it; line mode reads it in windows (the first IRW_MEMORY_LIMIT / 4096 lines, 1,048,000 at "
                           "4 GiB, then x4) and refuses it in the window of its first problem; the column reader, "
                           "which takes the duplicates' valid lines, stops at IRW_MEMORY_LIMIT / 512 rows (8.4M)")
        self.emit(table)

    # -- PostgreSQL beside DuckDB (issue 14): benchmarks/postgres.py ------------------------------
    def postgres(self) -> None:
        import postgres
        postgres.section(self, sys.modules[__name__])

    # -- Spark local[2] beside DuckDB (issue 15): benchmarks/spark.py -----------------------------
    # -- many runs on PostgreSQL beside DuckDB (issue 27): benchmarks/pg_scale.py -------------------
    def pg_scale(self) -> None:
        import pg_scale
        pg_scale.section(self, sys.modules[__name__])

    def spark(self) -> None:
        import spark
        spark.section(self, sys.modules[__name__])

    # -- report ------------------------------------------------------------------------------
    def targets_table(self) -> None:
        if self.targets:
            self.emit(Table("Targets", ["target", "goal", "measured", "state"], self.targets))

    def readme_summary(self, env: list[str]) -> str:
        """docs/performance.md's block between <!-- bench-summary:start --> and <!-- bench-summary:end -->:
        issue 12's shapes, the many-runs line and their targets, as this run measured them."""
        tools = ["irw trec-eval -q", "irw trec-eval", "irw evaluate_files (Python)", "pytrec_eval", "ir_measures",
                 "trec_eval (C) -q", "trec_eval (C)"]
        out = [f"From `make bench` ({env[1].removeprefix('date: ')}; {env[2].removeprefix('machine: ')}; median of "
               f"{self.repeats}, each job in its own process, wall time from process start to exit or to the values "
               "in hand, and peak memory). Every tool's per-query values agreed with irw's unless a cell says so.", "",
               "| shape | measures | " + " | ".join(tools) + " |", "|" + "---|" * (len(tools) + 2)]
        for label, measure_set, results in self.shape_summary:
            cells = []
            for tool in tools:
                res = results.get(tool) or (results.get("pytrec_eval (all its measures)") if tool == "pytrec_eval"
                                            else None)
                cells.append("" if res is None else (f"failed" if res.error else
                                                     f"{secs(res.median('wall'))}, {mem(res.median('rss'))}"))
            out.append(f"| {label} | {'five' if measure_set == 'five' else 'all_trec'} | " + " | ".join(cells) + " |")
        out += ["", "five: map, P.10, ndcg_cut.10, recall.1000, recip_rank; all_trec: trec_eval's set (pytrec_eval: "
                "every measure it supports). The evaluate_files column is the Python call, the others whole "
                "processes.", ""]
        if self.run_scale_summary:
            scale = list(self.run_scale_summary)
            out += ["| stored runs (x 5,000 lines) | " + " | ".join(f"{n:,}" for n in scale) + " |",
                    "|---|" + "---|" * len(scale)]
            for table in self.tables:
                if table.title.startswith("Many runs:"):
                    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in table.rows]
            out.append("")
        if self.issue12_targets:
            out += ["| target (issue 12) | goal | measured | state |", "|---|---|---|---|"]
            out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in self.issue12_targets]
        return "\n".join(out) + "\n"


def find_trec_eval(given: str | None) -> tuple[str | None, str]:
    """(path, note) of a trec_eval (C) that runs, or (None, why not). Built by hand: see
    benchmarks/README.md ("trec_eval (C)"); its by-hand numbers are in benchmarks/trec_eval_by_hand.md."""
    candidates = [given] if given else [os.environ.get("IRW_TREC_EVAL"), shutil.which("trec_eval"),
                                        str(TREC_EVAL_CACHE) if TREC_EVAL_CACHE.exists() else None]
    with tempfile.TemporaryDirectory(prefix="irw-bench-") as tmp:
        qrels, run = Path(tmp) / "qrels", Path(tmp) / "run"
        qrels.write_text("1 0 a 1\n1 0 b 0\n")
        run.write_text("1 Q0 b 1 2.0 t\n1 Q0 a 2 1.0 t\n")
        for path in filter(None, candidates):
            try:
                probe = subprocess.run([path, "-m", "map", str(qrels), str(run)], capture_output=True, text=True,
                                       timeout=30)
            except OSError as exc:
                if given:
                    return None, f"{path} does not run: {exc}"
                continue
            if probe.returncode == 0 and probe.stdout.split() == ["map", "all", "0.5000"]:
                return path, path + (" (built by hand from trec_eval 9.0.8's library: benchmarks/README.md)"
                                      if Path(path) == TREC_EVAL_CACHE else "")
            if given:
                return None, (f"{path} does not behave as trec_eval (exit {probe.returncode}: "
                              f"{(probe.stdout + probe.stderr).strip()[:200]})")
    return None, ("not available (no --trec-eval, $IRW_TREC_EVAL, trec_eval on PATH or "
                  f"{TREC_EVAL_CACHE}): its numbers were recorded by hand, see benchmarks/trec_eval_by_hand.md")


def environment(args: argparse.Namespace, sizes: dict) -> list[str]:
    def version(dist: str) -> str:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True).stdout.strip()
        commit += " (work tree has uncommitted changes)" if dirty else ""
    except OSError:
        commit = "unknown"
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        memory = 0
    load = os.getloadavg()
    return [
        f"command: {' '.join(shlex.quote(a) for a in ['python', 'benchmarks/run.py', *sys.argv[1:]])}",
        f"date: {dt.datetime.now().astimezone().isoformat(timespec='seconds')}; irw commit {commit}",
        f"machine: {os.cpu_count()} cores ({cpu}), {mem(memory)} memory; load average at start "
        f"{load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}",
        f"python {platform.python_version()}; duckdb {version('duckdb')}; pytrec-eval-terrier "
        f"{version('pytrec-eval-terrier')}; ranx {version('ranx')} (numba {version('numba')}); ir-measures "
        f"{version('ir-measures')}; numpy {version('numpy')}",
        f"trec_eval (C): {find_trec_eval(args.trec_eval)[1]}",
        f"sizes: MS MARCO-like {sizes['msmarco_queries']:,} queries; TREC-like {sizes['trec_queries']} queries; "
        f"leaderboard {sizes['leaderboard_runs']} runs; scaling "
        f"{', '.join(lines(n) for n in sizes['scaling_lines'])} lines; shapes "
        f"{', '.join(label for label, *_ in sizes['shapes_small'] + sizes['shapes_large'])}; many runs "
        f"{', '.join(f'{n:,}' for n in sizes['run_scale'] if args.quick or n <= args.scale_max)}"
        f"{', 10,000' if not args.quick and args.scale_max >= 10000 else ''}; repeats {args.repeats}; seed {args.seed}",
    ]


def parse_lines(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        m = re.fullmatch(r"\s*([\d.]+)\s*([kKmM]?)\s*", part)
        if not m:
            raise argparse.ArgumentTypeError(f"not a line count: {part!r} (e.g. 1M,7M,28M)")
        out.append(int(float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6}[m.group(2).lower()]))
    return out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="irw against pytrec_eval, ranx and ir_measures on the same generated files.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"sections: {', '.join(SECTIONS)}; tools: irw, {', '.join(PEERS)}")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes and 1 repeat: a smoke check that takes seconds (plus a first "
                             "ranx warm-up)")
    parser.add_argument("--only", default="", metavar="NAME[,NAME]",
                        help=f"run only these sections ({', '.join(SECTIONS)}) "
                             "and/or peers (pytrec_eval, ranx, ir_measures: implies files unless a section "
                             "is named too)")
    parser.add_argument("--repeats", type=int, help="runs per job; the median is reported (default 3, quick 1)")
    parser.add_argument("--out", default=str(ROOT / "bench-data"),
                        help="where generated data and warehouses go (default bench-data/, git-ignored)")
    parser.add_argument("--markdown", default=str(HERE / "results.md"),
                        help="where to write the markdown report (default benchmarks/results.md; '-' for none)")
    parser.add_argument("--msmarco-queries", type=int, help="MS MARCO-like queries (default 7000: 7M lines)")
    parser.add_argument("--trec-queries", type=int, help="TREC-like queries (default 250)")
    parser.add_argument("--leaderboard-runs", type=int, help="stored runs in the leaderboard (default 100)")
    parser.add_argument("--scaling", type=parse_lines, metavar="LINES",
                        help="run sizes for the scaling section (default 1M,7M,28M)")
    parser.add_argument("--scaling-tools", default="irw,pytrec_eval",
                        help="tools timed in the scaling section (default irw,pytrec_eval; 'all' for every peer)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--timeout", type=float, default=3600, help="seconds before one job is killed")
    parser.add_argument("--no-warmup", action="store_true", help="skip the untimed warm-up run of each tool")
    parser.add_argument("--trec-eval", metavar="PATH",
                        help="trec_eval (C) to time beside irw in the small and large sections (default: "
                             f"$IRW_TREC_EVAL, else trec_eval on PATH, else {TREC_EVAL_CACHE} if it exists)")
    parser.add_argument("--scale-max", type=int, default=1000, metavar="RUNS",
                        help="largest warehouse on the many-runs line 10 / 100 / 1,000 / 10,000 runs (default "
                             "1000; 10000 adds the 10,000-run point, which takes long: see benchmarks/README.md)")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in SECTIONS and n not in PEERS and n != "irw"]
    if unknown:
        parser.error(f"--only: unknown name {', '.join(unknown)} (sections: {', '.join(SECTIONS)}; "
                     f"peers: {', '.join(PEERS)})")
    args.tools = [n for n in names if n in PEERS or n == "irw"]
    sections = [n for n in names if n in SECTIONS]
    args.sections = sections or (["files"] if args.tools else list(SECTIONS))
    scaling_tools = [t.strip() for t in args.scaling_tools.split(",") if t.strip()]
    args.scaling_tools = ["irw", *PEERS] if scaling_tools == ["all"] else scaling_tools
    bad = [t for t in args.scaling_tools if t != "irw" and t not in PEERS]
    if bad:
        parser.error(f"--scaling-tools: unknown tool {', '.join(bad)}")
    if "irw" not in args.scaling_tools:
        args.scaling_tools.insert(0, "irw")
    return args


README_START, README_END = "<!-- bench-summary:start -->", "<!-- bench-summary:end -->"


def write_readme_summary(bench: Bench, args: argparse.Namespace, env: list[str], mode: str) -> None:
    """Replaces docs/performance.md's bench-summary block, only after a full-size run (not --quick, default
    sizes) of every issue-12 section (small, large, many-runs) written to benchmarks/results.md."""
    wanted = {"small", "large", "many-runs"}
    if args.quick or mode.startswith("custom") or not wanted <= set(args.sections):
        log("docs/performance.md's summary not updated: it comes from a full-size run of the small, large and many-runs sections")
        return
    readme = ROOT / "docs" / "performance.md"
    text = readme.read_text(encoding="utf-8")
    if README_START not in text or README_END not in text:
        log(f"docs/performance.md's summary not updated: docs/performance.md has no {README_START} ... {README_END} block")
        return
    head, rest = text.split(README_START, 1)
    _, tail = rest.split(README_END, 1)
    readme.write_text(head + README_START + "\n" + bench.readme_summary(env) + README_END + tail, encoding="utf-8")
    log("docs/performance.md: the bench-summary block was rewritten from this run")


def compile_irw_bytecode() -> None:
    """Writes the bytecode of irw's own modules (warehouse/__pycache__), as `pip install` does for
    an installed package and as a user's first run does. The peers' modules come compiled with
    their wheels; irw's editable checkout does not, and where PYTHONDONTWRITEBYTECODE is set (it
    is on the project machine) no run ever writes it, so every timed irw process would compile
    its modules again (~30-40 ms of a 0.3 s DL19 job), which no installed irw does."""
    import compileall

    if not compileall.compile_dir(str(ROOT / "warehouse"), quiet=1):
        log("note: irw's modules did not all compile to bytecode; irw's times include compiling them")


def write_markdown(path: Path, report: str, args: argparse.Namespace) -> None:
    """A run of every section writes the whole file. A run of some sections (--only) into a file
    that exists keeps what is there (the full run's tables, earlier partial runs) and puts its
    report, headings one level down, between markers naming its sections at the end: replacing
    the block of an earlier run of the same sections, else appended."""
    if args.sections == list(SECTIONS) or not path.is_file():
        path.write_text(report)
        log(f"markdown written to {path}")
        return
    name = ",".join(args.sections)
    start, end = f"<!-- bench-only:{name}:start -->", f"<!-- bench-only:{name}:end -->"
    block = start + "\n" + re.sub(r"(?m)^#", "##", report).rstrip("\n") + "\n" + end + "\n"
    text = path.read_text(encoding="utf-8")
    if start in text and end in text:
        head, rest = text.split(start, 1)
        text = head + block + rest.split(end, 1)[1].lstrip("\n")
        what = "replaced its block"
    else:
        text = text.rstrip("\n") + "\n\n---\n\n" + block
        what = "appended its block"
    path.write_text(text, encoding="utf-8")
    log(f"markdown: {path} kept, this run of {name} {what} (between {start} and {end})")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    compile_irw_bytecode()
    sizes = dict(QUICK if args.quick else FULL)
    for key, value in (("msmarco_queries", args.msmarco_queries), ("trec_queries", args.trec_queries),
                       ("leaderboard_runs", args.leaderboard_runs), ("scaling_lines", args.scaling)):
        if value:
            sizes[key] = value
    args.repeats = max(1, args.repeats or sizes["repeats"])
    custom = sizes != {**(QUICK if args.quick else FULL), "repeats": sizes["repeats"]} or \
        args.repeats != sizes["repeats"]
    env = environment(args, sizes)
    mode = "QUICK smoke run: small sizes, not the benchmark" if args.quick else \
        ("custom sizes" if custom else "full benchmark")
    if args.sections != list(SECTIONS):
        mode += f"; sections: {', '.join(args.sections)}"
    if args.tools:
        mode += f"; peers: {', '.join(t for t in args.tools if t != 'irw') or 'none'}"
    print(f"irw benchmark ({mode})")
    for line in env:
        print(f"  {line}")
    print(flush=True)
    if os.getloadavg()[0] > (os.cpu_count() or 1) / 2:
        log(f"note: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores: other work is running, "
            "times will be noisy")

    bench = Bench(args, sizes)
    bench.check_peers()
    started = time.monotonic()
    took = []
    for section in SECTIONS:
        if section in args.sections:
            log(f"== {section}")
            begun = time.monotonic()
            getattr(bench, section.replace("-", "_"))()
            took.append(f"{section} {time.monotonic() - begun:.0f} s")
            log(f"== {section} took {time.monotonic() - begun:.0f} s")
    bench.targets_table()
    elapsed = time.monotonic() - started
    load = os.getloadavg()
    footer = (f"finished in {elapsed:.0f} s ({', '.join(took)}); load average at the end "
              f"{load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}")
    print(footer)
    skipped = [f"{peer}: {reason}" for peer, reason in bench.available.items()
               if reason and reason != "not selected (--tools)"]
    if args.markdown != "-" and " (work tree has uncommitted changes)" in env[1] \
            and Path(args.markdown).resolve() == (HERE / "results.md").resolve():
        # results.md states the commit its numbers come from: numbers from an uncommitted tree have none
        log("not writing benchmarks/results.md: the work tree has uncommitted changes, so no commit made these "
            "numbers; commit first, or pass --markdown FILE (or -) to keep them elsewhere")
    elif args.markdown != "-":
        path = Path(args.markdown)
        text = [f"# irw benchmark results ({mode})", ""]
        if args.quick:
            text += ["> **Quick smoke run** (`--quick`): tiny sizes and one repeat, to check that the harness "
                     "works. Fixed start-up costs dominate at these sizes; these numbers say nothing about the "
                     "targets. Run `make bench` on an idle machine for the real table.", ""]
        text += [f"- {line}" for line in env] + [f"- {footer}"]
        text += [f"- skipped {s}" for s in skipped]
        text += ["", "Produced by `benchmarks/run.py`; see `benchmarks/README.md` for how to read it.", ""]
        text += [t.markdown() for t in bench.tables]
        by_hand = HERE / "trec_eval_by_hand.md"
        if not bench.trec_eval and by_hand.is_file() and {"small", "large"} & set(args.sections):
            # no trec_eval (C) on this machine: its numbers as recorded by hand, with their commands
            text += ["### trec_eval (C), recorded by hand (not measured in this run)", "",
                     by_hand.read_text(encoding="utf-8").split("\n", 1)[1].strip(), ""]
        write_markdown(path, "\n".join(text), args)
        write_readme_summary(bench, args, env, mode)
        if "postgres" in args.sections:
            import postgres
            postgres.write_readme(bench, args, env, mode)
        if "spark" in args.sections:
            import spark
            spark.write_readme(bench, args, env, mode)
    return 0


if __name__ == "__main__":
    sys.exit(main())
