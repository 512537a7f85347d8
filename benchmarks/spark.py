"""Section `spark` of benchmarks/run.py: irw on Spark local[2] beside irw on DuckDB (issue 15).

    .venv/bin/python benchmarks/run.py --only spark            # the 7M- and 28M-line runs
    .venv/bin/python benchmarks/run.py --only spark --quick    # 100k and 200k lines, 1 repeat

The same command, `irw trec-eval`, on the same MS MARCO-like files (the 7M-line run of the other
sections and the largest scaling size, 28M lines), once on DuckDB (the default engine, in the
process) and once with `--engine spark --master local[2]` (a JVM started by pyspark, two worker
threads): a whole process each, spawn to exit, interleaved in each repeat. Two jobs per file:

- the benchmark's five measures (map, P.10, ndcg_cut.10, recall.1000, recip_rank), summary only:
  the common call;
- `-q -m all_trec`: every measure trec_eval computes by default and every per-query value, the
  heaviest call the drop-in has (93 measures; 7,000 x 90 lines out at 7M). It is the fair heavy
  case because it is the one a trec_eval user runs, and on Spark it costs both ways a cluster
  pays: more statements (each a Spark job) and more rows brought back to the driver to print.

Memory is the process tree's (benchmarks/launch.py --tree): pyspark starts the JVM as a child of
Python and never waits for it, so wait4's ru_maxrss would miss it; the launcher samples the summed
resident set of every process of the command. The JVM is given DRIVER_MEMORY through Spark's own
SPARK_DRIVER_MEMORY (in local mode the driver's heap is the whole cluster's memory; Spark's default,
1g, is too little for 28M lines), unless SPARK_DRIVER_MEMORY is already set, and a JVM grows its
heap towards that bound before collecting hard, so its peak says more about the setting than about
the need.

Agreement: Spark's output must equal DuckDB's, every line (name, query, value as printed: the
summary lines and, with -q, every per-query line); the table also says whether the two outputs are
the same bytes. The Spark/DuckDB ratio counts only when they agree. Spark is expected to be slower
on one machine (every statement is a Spark job): there is no time goal, the ratio is recorded.

A Spark job is repeated only while one run of it takes under SPARK_REPEAT_CAP seconds (at full
size each runs once) and is killed after SPARK_TIMEOUT seconds (or --timeout, if lower), which the
table then says. Without pyspark or Java the section is skipped with a line saying why.
"""
from __future__ import annotations

import filecmp
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LAUNCHER = HERE / "launch.py"
MASTER = "local[2]"
DRIVER_MEMORY = "8g"
SPARK_TIMEOUT = 1200.0     # 20 minutes for one Spark job
SPARK_REPEAT_CAP = 60.0    # a Spark job that took longer is not repeated
README_START, README_END = "<!-- bench-spark:start -->", "<!-- bench-spark:end -->"
TITLE = "Spark local[2] beside DuckDB (issue 15)"
# what the JVM prints on stderr of every run (log lines, pyspark's banner): not a reason for a failure
SPARK_CHATTER = re.compile(r"\d\d/\d\d/\d\d \d\d:\d\d:\d\d |WARNING: |Using Spark's|Setting default log level|To adjust logging")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def missing() -> str | None:
    """Why Spark cannot run here, or None."""
    import importlib.util

    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed (pip install -e '.[spark]'; make bench installs it)"
    java_home = os.environ.get("JAVA_HOME")
    if not shutil.which("java") and not (java_home and os.access(Path(java_home) / "bin" / "java", os.X_OK)):
        return ("Java is not installed (Spark 4 needs a Java 17 runtime: java on PATH or JAVA_HOME; "
                "make java installs Debian's openjdk-17-jre-headless as root)")
    return None


def jobs() -> dict[str, list[str]]:
    from workers import FIVE_REQUEST

    return {"five measures": [x for m in FIVE_REQUEST for x in ("-m", m)], "-q -m all_trec": ["-q", "-m", "all_trec"]}


# -- running one command ----------------------------------------------------------------------
def run_tree(h, cmd: list[str], timeout: float, stdout: Path, env: dict | None = None):
    """cmd through launch.py --tree: a run.py Sample (wall = spawn to the command's exit; cpu and
    peak memory of its whole process tree); its output is left in `stdout`."""
    with tempfile.TemporaryDirectory(prefix="irw-bench-") as tmp, open(stdout, "wb") as out, \
            tempfile.TemporaryFile(mode="w+b") as err:
        report = Path(tmp) / "launch.json"
        try:
            subprocess.run([sys.executable, str(LAUNCHER), "--tree", str(report), str(timeout), *cmd], stdout=out,
                           stderr=err, cwd=ROOT, env=env, timeout=timeout + 120)
        except subprocess.TimeoutExpired:
            return h.Sample(error=f"launcher hung past {timeout + 120:.0f} s")
        err.seek(0)
        tail = [line for line in err.read().decode("utf-8", "replace").strip().splitlines()
                if not SPARK_CHATTER.match(line)][-3:]
        if not report.is_file():
            return h.Sample(error="launcher failed: " + " | ".join(tail))
        r = json.loads(report.read_text())
    info = {"tree processes": r["processes"], "tree exit": r["tree_end"] - r["start"]}
    if r["timed_out"]:
        return h.Sample(error=f"killed after {timeout:.0f} s", cpu=r["cpu"], rss=r["maxrss"], info=info)
    if r["status"] != 0:
        return h.Sample(error=f"exit {r['status']}: " + " | ".join(tail), cpu=r["cpu"], rss=r["maxrss"], info=info)
    return h.Sample(wall=r["end"] - r["start"], job=r["end"] - r["start"], cpu=r["cpu"], rss=r["maxrss"], info=info)


# -- agreement --------------------------------------------------------------------------------
def trec_lines(path: Path) -> dict[tuple[str, str], str]:
    """trec_eval's output -> {(measure, query): value as printed}."""
    out = {}
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            fields = line.split()
            if len(fields) == 3:
                out[(fields[0], fields[1])] = fields[2]
    return out


def agreement(duck: Path, spark: Path) -> dict:
    """Spark's output against DuckDB's: every (measure, query) line's value as printed."""
    same_bytes = filecmp.cmp(duck, spark, shallow=False)
    mine, theirs = trec_lines(duck), trec_lines(spark)
    differing = []
    for key in sorted(set(mine) | set(theirs)):
        a, b = mine.get(key), theirs.get(key)
        if a != b:
            differing.append(f"{key[0]} {key[1]}: " + ("only on DuckDB" if b is None else "only on Spark" if a is None
                                                       else f"{b} vs {a}"))
    return {"lines": len(mine), "spark lines": len(theirs), "differing": differing, "same bytes": same_bytes,
            "agrees": bool(mine) and not differing}


# -- the section ------------------------------------------------------------------------------
def section(bench, h) -> None:
    """bench: run.py's Bench (sizes, repeats, out, emit, target); h: the run.py module."""
    bench.spark_summary = None
    why = missing()
    if why:
        log(f"  skipping the spark section: {why}")
        bench.emit(h.Table(TITLE, ["job", "result"], [["every job", f"skipped: {why}"]]))
        bench.target("Spark local[2]: irw trec-eval beside DuckDB (issue 15)", "output equal to DuckDB's",
                     f"skipped: {why}", None)
        return
    Section(bench, h).run()


class Section:
    def __init__(self, bench, h):
        self.bench, self.h = bench, h
        self.irw = h.irw_command()
        self.work = bench.work / "spark"
        self.work.mkdir(parents=True, exist_ok=True)
        self.full = not bench.args.quick
        self.timeout = min(bench.args.timeout, SPARK_TIMEOUT)
        self.env = dict(os.environ)
        self.memory_note = f"SPARK_DRIVER_MEMORY={self.env.get('SPARK_DRIVER_MEMORY')} (set by the caller)"
        if not self.env.get("SPARK_DRIVER_MEMORY"):
            self.env["SPARK_DRIVER_MEMORY"] = DRIVER_MEMORY
            self.memory_note = f"SPARK_DRIVER_MEMORY={DRIVER_MEMORY} (the section's default)"
        self.rows: list[list[str]] = []
        self.agreement_rows: list[list[str]] = []
        self.summary: list[list[str]] = []

    def shapes(self) -> list[int]:
        """Queries of the MS MARCO-like runs: the size the other sections use (7M lines) and the
        largest scaling size (28M); --quick's are 100k and 200k lines."""
        sizes = self.bench.sizes
        largest = max(sizes["scaling_lines"]) // 1000
        return list(dict.fromkeys([sizes["msmarco_queries"], largest]))

    def run(self) -> None:
        h, b = self.h, self.bench
        for queries in self.shapes():
            data = b.msmarco(queries)
            if self.full and not b.args.no_warmup:   # the file in the page cache, as for every later job
                log(f"  [spark] reading {h.lines(data.run_lines)} lines once, untimed (page cache)")
                run_tree(h, [*self.irw, "trec-eval", "-m", "map", str(data.qrels), str(data.run)], b.args.timeout,
                         self.work / "warm.out")
            for label, argv in jobs().items():
                self.job(data, label, argv)
        h_table = h.Table(f"{TITLE}: irw trec-eval on MS MARCO-like runs", [
            "run", "job", "DuckDB (irw trec-eval)", f"Spark {MASTER} (irw trec-eval --engine spark)", "Spark / DuckDB",
            "output"], self.rows)
        h_table.notes.append(
            f"median of the runs shown in each cell (DuckDB: {b.repeats}; Spark: repeated only while one run takes "
            f"under {SPARK_REPEAT_CAP:.0f} s, killed after {self.timeout:.0f} s); each cell: wall (spawn to the "
            "command's exit), peak memory of the whole process tree (Python and, on Spark, the JVM it starts: "
            "benchmarks/launch.py --tree sums their resident sets), cpu seconds of the tree")
        h_table.notes.append(
            f"Spark: pyspark {self.version('pyspark')}, master {MASTER}, {self.memory_note}: in local mode the JVM's "
            "heap is the whole cluster's memory, and a JVM grows it towards that bound before collecting hard, "
            "so Spark's peak reflects the setting more than the need")
        b.emit(h_table)
        b.emit(h.Table("Agreement: Spark against DuckDB (irw trec-eval's output, every line)",
                       ["run", "job", "lines (DuckDB)", "lines (Spark)", "differing", "same bytes", "first differences"],
                       self.agreement_rows))
        b.spark_summary = self.summary

    @staticmethod
    def version(dist: str) -> str:
        import importlib.metadata

        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    def job(self, data, label: str, argv: list[str]) -> None:
        h, b = self.h, self.bench
        size = h.lines(data.run_lines)
        files = [str(data.qrels), str(data.run)]
        duck_cmd = [*self.irw, "trec-eval", *argv, *files]
        spark_cmd = [*self.irw, "trec-eval", "--engine", "spark", "--master", MASTER, *argv, *files]
        outputs = {"duck": self.work / "duckdb.out", "spark": self.work / "spark.out"}
        duck, spark = h.Result("DuckDB"), h.Result("Spark")
        for r in range(b.repeats):
            log(f"  [spark] {size} {label}: DuckDB (repeat {r + 1}/{b.repeats})")
            duck.samples.append(run_tree(h, duck_cmd, b.args.timeout,
                                         outputs["duck"] if r == 0 else self.work / "again.out"))
            last = spark.samples[-1] if spark.samples else None
            if last is None or (last.error is None and last.wall < SPARK_REPEAT_CAP):
                log(f"  [spark] {size} {label}: Spark {MASTER} (repeat {r + 1}/{b.repeats})")
                spark.samples.append(run_tree(h, spark_cmd, self.timeout,
                                              outputs["spark"] if r == 0 else self.work / "again.out", self.env))
            for side in (duck, spark):
                if side.samples and side.samples[-1].error:
                    log(f"    {side.label} failed: {side.samples[-1].error}")
        agrees = None
        if duck.error or spark.error:
            self.agreement_rows.append([size, label, "failed: " + "; ".join(
                f"{res.label}: {res.error}" for res in (duck, spark) if res.error), "", "", "", ""])
        else:
            result = agreement(outputs["duck"], outputs["spark"])
            agrees = result["agrees"]
            self.agreement_rows.append([size, label, f"{result['lines']:,}", f"{result['spark lines']:,}",
                                        f"{len(result['differing']):,}", "yes" if result["same bytes"] else "no",
                                        "; ".join(result["differing"][:3])])
        for path in (*outputs.values(), self.work / "again.out"):
            path.unlink(missing_ok=True)
        ratio = spark.median("wall") / duck.median("wall") if not (duck.error or spark.error) else math.nan
        state = "equal" if agrees else ("DIFFERENT (see Agreement)" if agrees is False else "not compared")
        self.rows.append([size, label, self.cell(duck), self.cell(spark), h.times(ratio) if agrees else
                          (f"({h.times(ratio)}, does not count)" if agrees is False else "-"), state])
        name = f"Spark {MASTER}: irw trec-eval {label}, {size} lines"
        if agrees:
            measured = (f"{ratio:.1f}x DuckDB's time ({h.secs(spark.median('wall'))}, {h.mem(spark.median('rss'))} vs "
                        f"{h.secs(duck.median('wall'))}, {h.mem(duck.median('rss'))}); output equal")
        elif agrees is False:
            measured = "the outputs differ (see Agreement): the ratio does not count"
        else:
            measured = "failed: " + "; ".join(f"{res.label} {res.error}" for res in (duck, spark) if res.error)
        b.target(name, "output equal to DuckDB's (time recorded, no goal)", measured, agrees,
                 set_here=self.full or agrees is not True)
        self.summary.append([size, label, self.readme_cell(duck), self.readme_cell(spark),
                             h.times(ratio) if agrees else "does not count" if agrees is False else "-",
                             state])

    def cell(self, res) -> str:
        h = self.h
        if res.error:
            return f"failed: {res.error}" + (f" (peak memory {h.mem(res.samples[0].rss)})" if res.samples and
                                             res.samples[0].rss else "")
        runs = f" ({len(res.ok)} run{'s' if len(res.ok) != 1 else ''})"
        return f"{h.secs(res.median('wall'))}, {h.mem(res.median('rss'))}, cpu {h.secs(res.median('cpu'))}{runs}"

    def readme_cell(self, res) -> str:
        h = self.h
        if res.error:
            return f"failed: {res.error}"
        return f"{h.secs(res.median('wall'))}, {h.mem(res.median('rss'))}"


def write_readme(bench, args, env: list[str], mode: str) -> None:
    """Replaces docs/performance.md's bench-spark block after a full-size run of the spark section (default
    sizes, not --quick), as postgres.py rewrites the bench-postgres block."""
    rows = getattr(bench, "spark_summary", None)
    if rows is None:
        return
    if args.quick or mode.startswith("custom"):
        log("docs/performance.md's Spark block not updated: it comes from a full-size run of the spark section")
        return
    readme = ROOT / "docs" / "performance.md"
    text = readme.read_text(encoding="utf-8")
    if README_START not in text or README_END not in text:
        log(f"docs/performance.md's Spark block not updated: docs/performance.md has no {README_START} ... {README_END} block")
        return
    repeats = f"DuckDB median of {bench.repeats}, Spark jobs over {SPARK_REPEAT_CAP:.0f} s run once"
    out = [f"From `{env[0].removeprefix('command: ')}` ({env[1].removeprefix('date: ')}; "
           f"{env[2].removeprefix('machine: ')}; {repeats}; each command a process of its own, spawn to exit, "
           "peak memory of its process tree, the JVM included). A ratio counts only where Spark's output equals "
           "DuckDB's, line for line.", "",
           f"| run | job | DuckDB | Spark {MASTER} | Spark / DuckDB | output |", "|---|---|---|---|---|---|"]
    out += ["| " + " | ".join(str(c).replace("|", "/") for c in row) + " |" for row in rows]
    head, rest = text.split(README_START, 1)
    _, tail = rest.split(README_END, 1)
    readme.write_text(head + README_START + "\n" + "\n".join(out) + "\n" + README_END + tail, encoding="utf-8")
    log("docs/performance.md: the bench-spark block was rewritten from this run")
