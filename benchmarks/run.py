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
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
from workers import MEASURES, TREC_EVAL_NAMES, TREC_EVAL_REQUEST  # noqa: E402

WORKER = HERE / "workers.py"
LAUNCHER = HERE / "launch.py"
SECTIONS = ("files", "ingest", "evaluate", "leaderboard", "sql", "scaling")
PEERS = ("pytrec_eval", "ranx", "ir_measures")
PEER_PACKAGES = {"pytrec_eval": "pytrec-eval-terrier", "ranx": "ranx", "ir_measures": "ir-measures"}
TOLERANCE = 1e-4

FULL = {"msmarco_queries": 7000, "trec_queries": 250, "leaderboard_runs": 100,
        "scaling_lines": [1_000_000, 7_000_000, 28_000_000], "repeats": 3}
FULL_RUN_LINES = FULL["msmarco_queries"] * 1000  # the 7M-line run every target but the leaderboard's is set on
QUICK = {"msmarco_queries": 100, "trec_queries": 20, "leaderboard_runs": 10,
         "scaling_lines": [50_000, 100_000, 200_000], "repeats": 1}

TARGETS = {
    "files_pytrec_eval": 3.0,   # files to numbers: irw at least 3x faster than pytrec_eval
    "files_ranx": 8.0,          # ... and 8x faster than ranx, end to end
    "ingest_vs_count": 1.5,     # ingest within 1.5x of DuckDB counting the lines
    "stored_vs_pytrec": 5.0,    # evaluating a stored run 5x faster than pytrec_eval's evaluate()
    "incremental_seconds": 1.0,  # leaderboard over 100 stored runs, one added: under 1 s
}


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
                  info=out.get("info", {}), means=out.get("means", {}), per_query=out.get("per_query", {}))


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
    if value >= 2**30:
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

    # -- helpers -----------------------------------------------------------------------------
    def emit(self, table: Table) -> None:
        self.tables.append(table)
        print(table.text(), flush=True)

    def target(self, name: str, goal: str, measured: str, met: bool | None, *, set_here: bool = True) -> None:
        """set_here=False: the goal is set on the full sizes (the 7M-line MS MARCO-like run, 100
        stored runs), not on this shape or size; the number is shown for information only."""
        state = "n/a" if met is None else ("met" if met else "MISSED")
        if not set_here and met is not None:
            state = "info: the goal is set at full size"
        self.targets.append([name, goal, measured, state])

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

    # -- report ------------------------------------------------------------------------------
    def targets_table(self) -> None:
        if self.targets:
            self.emit(Table("Targets", ["target", "goal", "measured", "state"], self.targets))


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
        f"sizes: MS MARCO-like {sizes['msmarco_queries']:,} queries; TREC-like {sizes['trec_queries']} queries; "
        f"leaderboard {sizes['leaderboard_runs']} runs; scaling "
        f"{', '.join(lines(n) for n in sizes['scaling_lines'])} lines; repeats {args.repeats}; seed {args.seed}",
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
                        help="run only these sections (files, ingest, evaluate, leaderboard, sql, scaling) "
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


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
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
    for section in SECTIONS:
        if section in args.sections:
            log(f"== {section}")
            getattr(bench, section)()
    bench.targets_table()
    elapsed = time.monotonic() - started
    load = os.getloadavg()
    footer = f"finished in {elapsed:.0f} s; load average at the end {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}"
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
        path.write_text("\n".join(text))
        log(f"markdown written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
