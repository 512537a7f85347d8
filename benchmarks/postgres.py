"""Section `postgres` of benchmarks/run.py: a PostgreSQL warehouse beside a DuckDB file (issue 14).

    .venv/bin/python benchmarks/run.py --only postgres            # 7M-line run, 100 stored runs
    .venv/bin/python benchmarks/run.py --only postgres --quick    # 100k lines, 10 runs, 1 repeat

Issue 14's bound: with the warehouse on a PostgreSQL server, ingest of the 7M-line run, evaluating
that stored run, and the 100-run leaderboard each take at most 5x what they take on a DuckDB file,
in the same sitting. A throwaway PostgreSQL 15 is started with scripts/postgres.sh in a temporary
directory (fsync off, otherwise its default settings) and always stopped; without PostgreSQL 15
the section is skipped with a line saying so (it never installs anything). Every command is the
irw CLI in its own process (benchmarks/launch.py: spawn to exit, the client's CPU and peak
memory), interleaved with its DuckDB twin in each repeat, and the median of the repeats is shown.
The server's CPU seconds during a command (its backends, read from /proc) are shown beside the
client's; its memory is not.

1. `irw ingest qrels` then `irw ingest run` of the 7M-line MS MARCO-like run, into a fresh
   database (created empty; irw creates its schema on first use) and into a new DuckDB file.
2. `irw eval` of that stored run with the benchmark's seven measures: first (computes and stores
   every score), then again (reads the stored scores).
3. The leaderboard over 100 TREC-like runs of 5,000 lines (benchmarks/many_runs.py's data and
   names): the DuckDB warehouse is built with Warehouse.ingest_run, the server's gets the same
   runs with `irw copy --from FILE --to URL`; each repeat starts from a copy of both (a file copy;
   CREATE DATABASE ... TEMPLATE), then `irw report leaderboard --baseline ... -o FILE` (with run
   pages) cold, `irw ingest run` of one more run, and the same leaderboard again.
4. Agreement: every per-query value and mean of (2) on the server against the DuckDB file's,
   equal at 4 decimals (|difference| < 5e-5), and the leaderboard's table (`-f tsv`) likewise. A
   target counts as met only when its numbers agree.
"""
from __future__ import annotations

import contextlib
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SCRIPT = ROOT / "scripts" / "postgres.sh"
MAJOR = "15"
RATIO = 5.0                      # issue 14: PostgreSQL within 5x of DuckDB
DECIMALS = 4                     # agreement: equal at 4 decimals
README_START, README_END = "<!-- bench-postgres:start -->", "<!-- bench-postgres:end -->"
TITLE = "PostgreSQL beside DuckDB (issue 14)"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- the server ------------------------------------------------------------------------------------
def postgres15_bindir() -> Path | None:
    """The directory of PostgreSQL 15's initdb, pg_ctl, postgres and pg_isready, looked up as
    scripts/postgres.sh does; None when there is none (the script would install Debian's package
    as root: the benchmark never does)."""
    candidates = [Path(f"/usr/lib/postgresql/{MAJOR}/bin")]
    if shutil.which("pg_config"):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip():
            candidates.append(Path(out.stdout.strip()))
    if shutil.which("initdb"):
        candidates.append(Path(shutil.which("initdb")).resolve().parent)
    for directory in candidates:
        if not all(os.access(directory / exe, os.X_OK) for exe in ("initdb", "pg_ctl", "postgres", "pg_isready")):
            continue
        version = subprocess.run([str(directory / "postgres"), "--version"], capture_output=True, text=True).stdout
        if re.search(rf"\b{MAJOR}(\.\d+)+\b", version):
            return directory
    return None


class Server:
    """A throwaway PostgreSQL 15 from scripts/postgres.sh: databases made and dropped by an admin
    connection, and the server's CPU seconds (the postmaster and every process it forked) from /proc."""

    def __init__(self, directory: Path, url: str):
        import psycopg

        self.directory, self.url = directory, url
        self.base = url.rsplit("/", 1)[0]
        self.admin = psycopg.connect(url, autocommit=True)
        self.postmaster = int((directory / "data" / "postmaster.pid").read_text().split()[0])
        self.tick = os.sysconf("SC_CLK_TCK")

    def db_url(self, name: str) -> str:
        return f"{self.base}/{name}"

    def setting(self, name: str) -> str:
        return self.admin.execute(f"show {name}").fetchone()[0]

    def version(self) -> str:
        return self.admin.execute("show server_version").fetchone()[0]

    def create(self, name: str, template: str | None = None) -> str:
        """A new database (dropped first if there); from a template, retried while the backend of
        the command that last used the template is still going away."""
        from psycopg import errors, sql

        self.drop(name)
        statement = sql.SQL("create database {}").format(sql.Identifier(name))
        if template:
            statement += sql.SQL(" template {}").format(sql.Identifier(template))
        for attempt in range(50):
            try:
                self.admin.execute(statement)
                break
            except errors.ObjectInUse:
                if attempt == 49:
                    raise
                time.sleep(0.1)
        return self.db_url(name)

    def drop(self, name: str) -> None:
        from psycopg import sql

        self.admin.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))

    def size(self, name: str) -> int:
        return self.admin.execute("select pg_database_size(%s)", [name]).fetchone()[0]

    def cpu(self) -> float:
        """User + system seconds of the postmaster, of the children it has reaped (backends that
        ended) and of the children alive now. A command's server CPU is the difference across it."""
        def stat(pid: int) -> list[str]:
            text = Path(f"/proc/{pid}/stat").read_text()
            return text[text.rindex(")") + 2:].split()   # fields from the 3rd (state) on

        try:
            fields = stat(self.postmaster)
            total = sum(int(fields[i]) for i in (11, 12, 13, 14))   # utime stime cutime cstime
            children = Path(f"/proc/{self.postmaster}/task/{self.postmaster}/children").read_text().split()
            for child in children:
                with contextlib.suppress(OSError, ValueError, IndexError):
                    f = stat(int(child))
                    total += int(f[11]) + int(f[12])
            return total / self.tick
        except (OSError, ValueError, IndexError):
            return math.nan

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.admin.close()


@contextlib.contextmanager
def throwaway_server():
    """Yields a Server, or a string saying why there is none; the cluster is always stopped and
    its directory removed, also when the benchmark is interrupted (SIGTERM included)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        yield "psycopg is not installed (pip install -e '.[postgresql]'), so irw cannot open a PostgreSQL warehouse"
        return
    if postgres15_bindir() is None:
        yield (f"PostgreSQL {MAJOR} is not installed (no initdb/pg_ctl/postgres/pg_isready {MAJOR} in "
               f"/usr/lib/postgresql/{MAJOR}/bin, pg_config --bindir or PATH; Debian 12: apt-get install postgresql)")
        return
    directory = Path(tempfile.mkdtemp(prefix="irw-bench-pg-"))
    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    server = None
    try:
        start = subprocess.run(["bash", str(SCRIPT), "start", str(directory)], capture_output=True, text=True)
        if start.returncode == 3:
            yield f"PostgreSQL {MAJOR} is not installed: " + " | ".join(start.stderr.strip().splitlines()[-2:])
            return
        if start.returncode != 0:
            yield f"scripts/postgres.sh start failed (exit {start.returncode}): " + \
                " | ".join(start.stderr.strip().splitlines()[-5:])
            return
        server = Server(directory, start.stdout.strip().splitlines()[-1])
        yield server
    finally:
        if server is not None:
            server.close()
        stop = subprocess.run(["bash", str(SCRIPT), "stop", str(directory)], capture_output=True, text=True)
        if stop.returncode != 0:
            log(f"  scripts/postgres.sh stop {directory} failed (exit {stop.returncode}): {stop.stderr.strip()}")
        signal.signal(signal.SIGTERM, previous)


# -- agreement ------------------------------------------------------------------------------------
def parse_tsv(text: str, keys: int) -> dict[tuple, dict[str, str]]:
    """irw's -f tsv output -> {first `keys` cells: {column: cell}}."""
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    if not rows:
        return {}
    header, out = rows[0], {}
    for row in rows[1:]:
        out[tuple(row[:keys])] = dict(zip(header[keys:], row[keys:]))
    return out


def compare(mine: dict, theirs: dict) -> dict:
    """Every cell of two parsed tables: numbers equal at DECIMALS decimals (|difference| <
    0.5e-DECIMALS), anything else equal as text. Returns counts and the first differences."""
    compared, differing, worst = 0, [], 0.0
    limit = 0.5 * 10 ** -DECIMALS
    for key in sorted(set(mine) | set(theirs)):
        a, b = mine.get(key), theirs.get(key)
        if a is None or b is None:
            differing.append(f"{'/'.join(key)}: only on {'PostgreSQL' if a is None else 'DuckDB'}")
            continue
        for column in sorted(set(a) | set(b)):
            x, y = a.get(column), b.get(column)
            compared += 1
            try:
                fx, fy = float(x), float(y)
            except (TypeError, ValueError):
                if x != y:
                    differing.append(f"{'/'.join(key)} {column}: {x} vs {y}")
                continue
            if math.isnan(fx) and math.isnan(fy):
                continue
            diff = abs(fx - fy)
            worst = max(worst, diff) if not math.isnan(diff) else math.inf
            if not diff < limit:
                differing.append(f"{'/'.join(key)} {column}: {y} vs {x}")
    return {"rows": len(set(mine) | set(theirs)), "compared": compared, "differing": differing, "worst": worst}


def irw_output(irw: list[str], argv: list[str], timeout: float) -> tuple[str | None, str]:
    """An untimed irw command's stdout, or (None, why it failed)."""
    try:
        done = subprocess.run(irw + argv, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:.0f} s"
    if done.returncode != 0:
        return None, f"exit {done.returncode}: " + " | ".join(done.stderr.strip().splitlines()[-3:])
    return done.stdout, ""


# -- the section ----------------------------------------------------------------------------------
def section(bench, h) -> None:
    """bench: run.py's Bench (sizes, repeats, out, emit, target); h: the run.py module (run_timed,
    run_worker, Result, Table, secs, mem, ...)."""
    bench.postgres_summary = None
    with throwaway_server() as server:
        if isinstance(server, str):
            log(f"  skipping the postgres section: {server}")
            bench.emit(h.Table(TITLE, ["job", "result"], [["every job", f"skipped: {server}"]]))
            bench.target("PostgreSQL within 5x of DuckDB (issue 14)", f"<= {RATIO:g}x", f"skipped: {server}", None)
            return
        log(f"  PostgreSQL {server.version()} at {server.url} (throwaway, {server.directory})")
        try:
            Section(bench, h, server).run()
        except Exception as exc:   # the server went away, a database could not be made...: the rest goes on
            log(f"  the postgres section failed: {type(exc).__name__}: {exc}")
            bench.emit(h.Table(TITLE, ["job", "result"], [["the section", f"failed: {type(exc).__name__}: {exc}"]]))
            bench.target("PostgreSQL within 5x of DuckDB (issue 14)", f"<= {RATIO:g}x", f"failed: {exc}", False)


class Section:
    def __init__(self, bench, h, server: Server):
        self.bench, self.h, self.server = bench, h, server
        self.irw = h.irw_command()
        self.t = bench.args.timeout
        self.work = bench.work / "postgres"
        self.work.mkdir(parents=True, exist_ok=True)
        self.rows: list[list[str]] = []
        self.agreement: list[list[str]] = []
        self.ratios: dict[str, float] = {}
        self.full = not bench.args.quick

    # -- timing --------------------------------------------------------------------------------
    def timed(self, argv: list[str], server: bool = False):
        """One irw command through launch.py; on the server side, its server CPU in info."""
        before = self.server.cpu() if server else math.nan
        sample = self.h.run_timed(self.irw + argv, self.t)
        if server and not sample.error:
            time.sleep(0.05)   # let the postmaster reap the command's backend
            sample.info["server cpu"] = self.server.cpu() - before
        if sample.error:
            log(f"    irw {' '.join(argv[:2])} failed: {sample.error}")
        return sample

    def pair(self, label: str, duck, pg, goal: bool = True, agrees: bool | None = None) -> float:
        """A table row: DuckDB's and PostgreSQL's medians and their ratio."""
        h = self.h

        def cell(res, server: bool) -> str:
            if res.error:
                return f"failed: {res.error}"
            text = f"{h.secs(res.median('wall'))}, {h.mem(res.median('rss'))}, cpu {h.secs(res.median('cpu'))}"
            if server:
                cpu = [s.info["server cpu"] for s in res.ok if "server cpu" in s.info]
                if cpu:
                    text += f" + server {h.secs(statistics.median(cpu))}"
            return text

        ratio = pg.median("wall") / duck.median("wall") if not (duck.error or pg.error) else math.nan
        self.rows.append([label, cell(duck, False), cell(pg, True), h.times(ratio),
                          f"<= {RATIO:g}x" if goal else ""])
        return ratio

    @staticmethod
    def combine(label: str, parts: list, h):
        """The sum of commands run one after another (per repeat), as one Result."""
        out = h.Result(label)
        for samples in zip(*[p.samples for p in parts]):
            errors = [s.error for s in samples if s.error]
            if errors:
                out.samples.append(h.Sample(error=errors[0]))
                continue
            merged = h.Sample(wall=sum(s.wall for s in samples), job=sum(s.job for s in samples),
                              cpu=sum(s.cpu for s in samples), rss=max(s.rss for s in samples))
            if all("server cpu" in s.info for s in samples):
                merged.info["server cpu"] = sum(s.info["server cpu"] for s in samples)
            out.samples.append(merged)
        return out

    # -- the jobs ------------------------------------------------------------------------------
    def run(self) -> None:
        h, b = self.h, self.bench
        data = b.msmarco()
        eval_agrees = self.ingest_and_eval(data)
        board_agrees = self.leaderboard()
        server = self.server
        table = h.Table(f"{TITLE}: the {h.lines(data.run_lines)}-line MS MARCO-like run and "
                        f"{self.runs} stored TREC-like runs", ["job", "DuckDB file", "PostgreSQL",
                                                               "PostgreSQL / DuckDB", "goal"], self.rows)
        table.notes.append(
            f"median of {b.repeats}; each cell: wall (spawn to exit), the irw process's peak memory and cpu; "
            "on PostgreSQL also the server's cpu seconds (its backends) during the command. The server's "
            "memory is not counted")
        table.notes.append(
            f"PostgreSQL {server.version()}, a throwaway cluster from scripts/postgres.sh on this machine "
            f"(127.0.0.1, fsync off, shared_buffers {server.setting('shared_buffers')}, work_mem "
            f"{server.setting('work_mem')}, max_parallel_workers_per_gather "
            f"{server.setting('max_parallel_workers_per_gather')}); the DuckDB file on the same disk")
        table.notes.append(
            "ingest: into a fresh database (created empty, untimed; irw creates its schema in the qrels "
            "command) and into a new file; eval: the run just ingested, first call computes and stores "
            "the scores, the second reads them; leaderboard: each repeat on a fresh copy of the "
            f"{self.runs}-run warehouse (DuckDB: a file copy; PostgreSQL: CREATE DATABASE ... TEMPLATE)")
        b.emit(table)
        compared = [row for row in self.agreement if row[2]]
        if compared and len(compared) == len(self.agreement) and all(row[3] == "0" for row in compared):
            b.postgres_agreement = ("Every number agreed at 4 decimals: " + ", ".join(
                f"{row[2]} values of {row[0].split(':')[0]}" for row in compared) + ".")
        else:
            b.postgres_agreement = ("Not every number was compared or agreed (see the Agreement table in "
                                    "`benchmarks/results.md`): a target counts only when they agree.")
        b.emit(h.Table(f"Agreement: PostgreSQL against DuckDB (equal at {DECIMALS} decimals)",
                       ["numbers", "rows", "values compared", "differing", "largest difference", "first differences"],
                       self.agreement))
        self.targets(data, eval_agrees, board_agrees)

    def ingest_and_eval(self, data) -> bool | None:
        h, b = self.h, self.bench
        measures = [x for m in h.MEASURES for x in ("-m", m)]
        results = {key: h.Result(key) for key in (
            "duck qrels", "pg qrels", "duck run", "pg run", "duck eval", "pg eval", "duck stored", "pg stored")}
        sizes: dict[str, list[int]] = {"duck": [], "pg": []}
        agrees = None
        duck_db = self.work / "ingest.duckdb"
        for r in range(b.repeats):
            log(f"  [postgres] ingest and eval of the {h.lines(data.run_lines)}-line run (repeat {r + 1}/{b.repeats})")
            b.remove_db(duck_db)
            name = f"bench_ingest_{r}"
            pg_url = self.server.create(name)
            targets = {"duck": str(duck_db), "pg": pg_url}
            for side in ("pg", "duck"):
                db = targets[side]
                server = side == "pg"
                results[f"{side} qrels"].samples.append(
                    self.timed(["ingest", "qrels", "--db", db, "--name", "qrels", str(data.qrels)], server))
                results[f"{side} run"].samples.append(
                    self.timed(["ingest", "run", "--db", db, "--name", "run", str(data.run)], server))
            sizes["duck"].append(b.db_size(duck_db))
            sizes["pg"].append(self.server.size(name))
            for step in ("eval", "stored"):
                for side in ("pg", "duck"):
                    results[f"{side} {step}"].samples.append(self.timed(
                        ["eval", "--db", targets[side], "--qrels", "qrels", *measures, "-f", "tsv", "run"], side == "pg"))
            if r == 0:
                agrees = self.eval_agreement(targets, measures)
            self.server.drop(name)
        b.remove_db(duck_db)
        both = {side: self.combine(f"{side} both", [results[f"{side} qrels"], results[f"{side} run"]], h)
                for side in ("duck", "pg")}
        run_lines = h.lines(data.run_lines)
        self.pair("irw ingest qrels (a new warehouse: schema, then the qrels)", results["duck qrels"],
                  results["pg qrels"], goal=False)
        self.pair(f"irw ingest run ({run_lines} lines)", results["duck run"], results["pg run"], goal=False)
        size = (f"; size after ingest: DuckDB {h.mem(sorted(sizes['duck'])[len(sizes['duck']) // 2])}, PostgreSQL "
                f"{h.mem(sorted(sizes['pg'])[len(sizes['pg']) // 2])}") if sizes["pg"] else ""
        self.ratios["ingest"] = self.pair(f"ingest: qrels + {run_lines}-line run, together{size}", both["duck"], both["pg"])
        self.ratios["eval"] = self.pair(f"irw eval, first call ({len(h.MEASURES)} measures: computes and stores)",
                                        results["duck eval"], results["pg eval"])
        self.ratios["stored"] = self.pair("irw eval again (reads the stored scores)", results["duck stored"],
                                          results["pg stored"])
        self.walls = {"ingest": (both["duck"], both["pg"]), "eval": (results["duck eval"], results["pg eval"]),
                      "stored": (results["duck stored"], results["pg stored"])}
        return agrees

    def eval_agreement(self, targets: dict[str, str], measures: list[str]) -> bool:
        """The stored run's per-query values and means, read back from each warehouse (untimed)."""
        ok = True
        for label, extra, keys in (("irw eval -q: per-query values", ["-q"], 2), ("irw eval: means", [], 1)):
            tables = {}
            for side, db in targets.items():
                text, why = irw_output(self.irw, ["eval", "--db", db, "--qrels", "qrels", *measures, *extra,
                                                  "-f", "tsv", "run"], self.t)
                tables[side] = parse_tsv(text, keys) if text is not None else why
            ok = self.agreement_row(label, tables) and ok
        return ok

    def agreement_row(self, label: str, tables: dict) -> bool:
        failed = [f"{side}: {t}" for side, t in tables.items() if isinstance(t, str)]
        if failed:
            self.agreement.append([label, "failed: " + "; ".join(failed), "", "", "", ""])
            return False
        result = compare(tables["duck"], tables["pg"])
        self.agreement.append([label, f"{result['rows']:,}", f"{result['compared']:,}", str(len(result["differing"])),
                               f"{result['worst']:.1e}", "; ".join(result["differing"][:3])])
        return result["compared"] > 0 and not result["differing"]

    def leaderboard(self) -> bool | None:
        import many_runs

        h, b = self.h, self.bench
        n = self.runs = b.sizes["leaderboard_runs"]
        qrels, paths = many_runs.data(b.out, n + 1)
        base = self.work / f"board-{n}-base.duckdb"
        b.remove_db(base)
        log(f"  [postgres] the {n}-run warehouse: built in DuckDB, copied to PostgreSQL with irw copy")
        build = h.run_worker("many-runs-build", {"db": str(base), "data_root": str(b.out), "runs": n,
                                                  "qrels": str(qrels)}, self.t)
        if build.error:
            self.rows.append([f"set-up: {n} runs", f"failed: {build.error}", "", "", ""])
            return None
        self.server.create("bench_board_base")
        copy = self.timed(["copy", "--from", str(base), "--to", self.server.db_url("bench_board_base")], True)
        self.rows.append([f"set-up, once: {n} runs (DuckDB: ingest_run each, one process; PostgreSQL: irw copy "
                          "from that file)",
                          f"{h.secs(build.wall)}, {h.mem(build.rss)}" if not build.error else f"failed: {build.error}",
                          f"{h.secs(copy.wall)}, {h.mem(copy.rss)}, cpu {h.secs(copy.cpu)} + server "
                          f"{h.secs(copy.info.get('server cpu', math.nan))}" if not copy.error
                          else f"failed: {copy.error}", "", ""])
        if copy.error:
            b.remove_db(base)
            return None
        steps = ("cold", "ingest", "incremental")
        results = {f"{side} {step}": h.Result(step) for side in ("duck", "pg") for step in steps}
        agrees = None
        new_run = ["ingest", "run", "--name", many_runs.run_name(n), "--system", many_runs.system_name(n),
                   str(paths[n])]
        for r in range(b.repeats):
            log(f"  [postgres] leaderboard over {n} runs, cold and incremental (repeat {r + 1}/{b.repeats})")
            dbs = {"duck": str(b.copy_db(base, self.work / "board.duckdb")),
                   "pg": self.server.create("bench_board", template="bench_board_base")}
            sites = {side: self.work / f"site-{side}" for side in dbs}
            for site in sites.values():
                shutil.rmtree(site, ignore_errors=True)
            for step in steps:
                for side in ("pg", "duck"):
                    board = ["report", "leaderboard", "--db", dbs[side], "--qrels", "q", "--baseline",
                             many_runs.BASELINE, "-o", str(sites[side] / "board.html")]
                    argv = board if step != "ingest" else [*new_run[:2], "--db", dbs[side], *new_run[2:]]
                    results[f"{side} {step}"].samples.append(self.timed(argv, side == "pg"))
            if r == 0:
                tables = {}
                for side, db in dbs.items():
                    text, why = irw_output(self.irw, ["report", "leaderboard", "--db", db, "--qrels", "q", "--baseline",
                                                      many_runs.BASELINE, "-f", "tsv"], self.t)
                    tables[side] = parse_tsv(text, 1) if text is not None else why
                agrees = self.agreement_row(f"irw report leaderboard -f tsv: {n + 1} runs", tables)
            for site in sites.values():
                shutil.rmtree(site, ignore_errors=True)
            self.server.drop("bench_board")
        b.remove_db(self.work / "board.duckdb")
        b.remove_db(base)
        self.server.drop("bench_board_base")
        self.ratios["cold"] = self.pair(f"irw report leaderboard over {n} runs, cold (page and run pages)",
                                        results["duck cold"], results["pg cold"])
        self.pair("irw ingest run: one more run (5,000 lines)", results["duck ingest"], results["pg ingest"], goal=False)
        self.ratios["incremental"] = self.pair(f"irw report leaderboard, incremental ({n + 1} runs, one added)",
                                               results["duck incremental"], results["pg incremental"])
        self.walls.update(cold=(results["duck cold"], results["pg cold"]),
                          incremental=(results["duck incremental"], results["pg incremental"]))
        return agrees

    # -- targets and docs/performance.md -------------------------------------------------------
    def targets(self, data, eval_agrees: bool | None, board_agrees: bool | None) -> None:
        h, b = self.h, self.bench
        full_run = self.full and data.run_lines == h.FULL_RUN_LINES
        full_board = self.full and self.runs == h.FULL["leaderboard_runs"]
        run_lines = h.lines(data.run_lines)
        names = {"ingest": f"PostgreSQL: ingest of the {run_lines}-line run (qrels + run)",
                 "eval": f"PostgreSQL: evaluating the stored {run_lines}-line run, first call",
                 "stored": f"PostgreSQL: evaluating the stored {run_lines}-line run, stored scores",
                 "cold": f"PostgreSQL: leaderboard over {self.runs} runs, cold",
                 "incremental": f"PostgreSQL: leaderboard over {self.runs} runs, one added"}
        summary = []
        for key, name in names.items():
            if key not in self.ratios:
                b.target(name, f"<= {RATIO:g}x DuckDB's", "not run (set-up failed)", None)
                summary.append([name, "not run"])
                continue
            duck, pg = self.walls[key]
            agrees = board_agrees if key in ("cold", "incremental") else eval_agrees
            ratio = self.ratios[key]
            if math.isnan(ratio):
                measured = "failed: " + "; ".join(f"{side} {r.error}" for side, r in (("DuckDB", duck), ("PostgreSQL", pg))
                                                 if r.error)
                met = None if pg.error is None else False
            else:
                measured = f"{ratio:.2f}x ({h.secs(pg.median('wall'))} vs {h.secs(duck.median('wall'))})"
                if not agrees:
                    measured += "; the numbers disagree (see Agreement)" if agrees is False else "; agreement not checked"
                met = ratio <= RATIO and bool(agrees)
            b.target(name, f"<= {RATIO:g}x DuckDB's", measured, met,
                     set_here=full_board if key in ("cold", "incremental") else full_run)
            summary.append([name, measured])
        b.postgres_summary = summary


def write_readme(bench, args, env: list[str], mode: str) -> None:
    """Replaces docs/performance.md's bench-postgres block after a full-size run of the postgres section
    (default sizes, not --quick), as run.py rewrites the bench-summary block."""
    rows = getattr(bench, "postgres_summary", None)
    if rows is None:
        return
    if args.quick or mode.startswith("custom"):
        log("docs/performance.md's PostgreSQL block not updated: it comes from a full-size run of the postgres section")
        return
    readme = ROOT / "docs" / "performance.md"
    text = readme.read_text(encoding="utf-8")
    if README_START not in text or README_END not in text:
        log(f"docs/performance.md's PostgreSQL block not updated: docs/performance.md has no {README_START} ... {README_END} block")
        return
    state = {t[0]: t[3] for t in bench.targets}
    out = [f"From `{env[0].removeprefix('command: ')}` ({env[1].removeprefix('date: ')}; "
           f"{env[2].removeprefix('machine: ')}; median of {bench.repeats}, each command in its own process, "
           "spawn to exit; a throwaway PostgreSQL 15 on the same machine). "
           + getattr(bench, "postgres_agreement", ""), "",
           "| job | PostgreSQL / DuckDB (PostgreSQL vs DuckDB) | goal | state |", "|---|---|---|---|"]
    out += [f"| {name.removeprefix('PostgreSQL: ')} | {measured.replace('|', '/')} | <= {RATIO:g}x | "
            f"{state.get(name, 'n/a')} |" for name, measured in rows]
    head, rest = text.split(README_START, 1)
    _, tail = rest.split(README_END, 1)
    readme.write_text(head + README_START + "\n" + "\n".join(out) + "\n" + README_END + tail, encoding="utf-8")
    log("docs/performance.md: the bench-postgres block was rewritten from this run")
