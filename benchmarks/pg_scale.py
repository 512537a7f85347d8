"""Section `pg-scale` of benchmarks/run.py: the many-runs line on PostgreSQL 15 beside DuckDB (issue 27, item 2).

    .venv/bin/python benchmarks/run.py --only pg-scale                       # 100 and 1,000 stored runs
    .venv/bin/python benchmarks/run.py --only pg-scale --scale-max 100       # 100 only
    .venv/bin/python benchmarks/run.py --only pg-scale --scale-max 10000     # adds 10,000
    .venv/bin/python benchmarks/run.py --only pg-scale --quick               # 10 and 30 runs

For each N, benchmarks/many_runs.py's N TREC-like runs of 5,000 lines are ingested one by one
with Warehouse.ingest_run (one process each side, every ingest timed) into a DuckDB file and into
a fresh database of a throwaway PostgreSQL 15 (scripts/postgres.sh, benchmarks/postgres.py's
Server). Then, on copies of both (a file copy; CREATE DATABASE ... TEMPLATE), each command is the
irw CLI in its own process, DuckDB's and PostgreSQL's interleaved: `irw eval` of every run cold and
again (stored), the leaderboard with run pages and a fixed --baseline cold, `irw ingest run` of one
more run, the leaderboard again (incremental), and `irw report history`. Each cell gives wall,
peak memory of the irw process, the server's CPU during the command, and the 1-minute load
average when the command started (the machine may be shared). PostgreSQL's time over DuckDB's,
goal <= 2x (issue 27). A size is repeated (--repeats) only while one repeat takes under
run.REPEAT_CAP seconds. Agreement: the leaderboard's `-f tsv` table equal at 4 decimals.
"""
from __future__ import annotations

import math
import os
import shutil
import statistics
import time
from pathlib import Path

import postgres as pg

RATIO = 2.0   # issue 27: PostgreSQL within 2x of DuckDB for the same command
TITLE = "Many runs on PostgreSQL beside DuckDB (issue 27)"


def section(bench, h) -> None:
    with pg.throwaway_server() as server:
        if isinstance(server, str):
            pg.log(f"  skipping the pg-scale section: {server}")
            bench.emit(h.Table(TITLE, ["job", "result"], [["every job", f"skipped: {server}"]]))
            return
        pg.log(f"  PostgreSQL {server.version()} at {server.url} (throwaway, {server.directory})")
        Scale(bench, h, server).run()


class Scale:
    STEPS = ("irw eval: every run, cold", "irw eval: every run, stored",
             "leaderboard: cold (page and run pages)", "irw ingest run: one more run",
             "leaderboard: incremental (one run added)", "history (AP)")

    def __init__(self, bench, h, server):
        self.bench, self.h, self.server = bench, h, server
        self.irw = h.irw_command()
        self.t = bench.args.timeout
        self.work = bench.work / "pg-scale"
        self.work.mkdir(parents=True, exist_ok=True)

    def timed(self, argv: list[str], on_server: bool):
        load = os.getloadavg()[0]
        before = self.server.cpu() if on_server else math.nan
        sample = self.h.run_timed(self.irw + argv, self.t)
        sample.info["load"] = load
        if on_server and not sample.error:
            time.sleep(0.05)
            sample.info["server cpu"] = self.server.cpu() - before
        if sample.error:
            pg.log(f"    irw {' '.join(argv[:2])} failed: {sample.error}")
        return sample

    def scale(self) -> list[int]:
        b = self.bench
        if b.args.quick:
            return list(b.sizes["run_scale"])
        scale = [n for n in (100, 1000, 10000) if n <= b.args.scale_max]
        return scale or [100]

    def run(self) -> None:
        import many_runs

        h, b = self.h, self.bench
        rows: list[list[str]] = []
        agreement: list[list[str]] = []
        for n in self.scale():
            started = time.monotonic()
            pg.log(f"  [pg-scale] {n} runs: data")
            qrels, paths = many_runs.data(b.out, n + 1)
            base = self.work / f"scale-{n}-base.duckdb"
            b.remove_db(base)
            base_name = f"bench_scale_{n}_base"
            pg_base = self.server.create(base_name)
            builds = {}
            for side, db in (("duck", str(base)), ("pg", pg_base)):
                pg.log(f"  [pg-scale] {n} runs: building the {side} warehouse (each ingest_run timed)")
                load = os.getloadavg()[0]
                builds[side] = h.run_worker("many-runs-build", {"db": db, "data_root": str(b.out), "runs": n,
                                                                "qrels": str(qrels)}, self.t)
                builds[side].info["load"] = load
                if builds[side].error:
                    pg.log(f"    failed: {builds[side].error}")
            rows.append([f"**{n:,} runs**", "", "", "", ""])
            rows.append([f"build: qrels + {n:,} runs, one process", *self.build_cells(builds, "job"), ""])
            rows.append(["ingest, per run (median; Warehouse.ingest_run)",
                         *self.build_cells(builds, "per run, median"), f"<= {RATIO:g}x"])
            rows.append(["ingest, per run: first / last tenth",
                         *self.build_cells(builds, "per run, first tenth", "per run, last tenth"), ""])
            if any(s.error for s in builds.values()):
                b.remove_db(base)
                self.server.drop(base_name)
                continue
            results = {f"{side} {step}": h.Result(step) for side in ("duck", "pg") for step in self.STEPS}
            for r in range(b.repeats):
                if r and time.monotonic() - repeat_started > h.REPEAT_CAP:
                    pg.log(f"  [pg-scale] {n} runs: one repeat took {time.monotonic() - repeat_started:.0f} s: "
                           "no more repeats at this size")
                    break
                repeat_started = time.monotonic()
                pg.log(f"  [pg-scale] {n} runs: eval, leaderboard, history (repeat {r + 1})")
                dbs = {"duck": str(b.copy_db(base, self.work / "eval.duckdb")),
                       "pg": self.server.create("bench_scale_eval", template=base_name)}
                for step in self.STEPS[:2]:
                    for side in ("pg", "duck"):
                        argv = ["eval", "--db", dbs[side], "--qrels", "q",
                                *[x for m in many_runs.MEASURES for x in ("-m", m)], "-f", "tsv"]
                        results[f"{side} {step}"].samples.append(self.timed(argv, side == "pg"))
                b.remove_db(Path(dbs["duck"]))
                self.server.drop("bench_scale_eval")
                dbs = {"duck": str(b.copy_db(base, self.work / "board.duckdb")),
                       "pg": self.server.create("bench_scale_board", template=base_name)}
                sites = {side: self.work / f"site-{side}" for side in dbs}
                for site in sites.values():
                    shutil.rmtree(site, ignore_errors=True)
                for step in self.STEPS[2:]:
                    for side in ("pg", "duck"):
                        db, site = dbs[side], sites[side]
                        if step.startswith("irw ingest"):
                            argv = ["ingest", "run", "--db", db, "--name", many_runs.run_name(n),
                                    "--system", many_runs.system_name(n), str(paths[n])]
                        elif step.startswith("history"):
                            argv = ["report", "history", "--db", db, "--qrels", "q", "-m", "AP",
                                    "-o", str(site / "history.html")]
                        else:
                            argv = ["report", "leaderboard", "--db", db, "--qrels", "q", "--baseline",
                                    many_runs.BASELINE, "-o", str(site / "board.html")]
                        results[f"{side} {step}"].samples.append(self.timed(argv, side == "pg"))
                if r == 0:
                    tables = {}
                    for side, db in dbs.items():
                        text, why = pg.irw_output(self.irw, ["report", "leaderboard", "--db", db, "--qrels", "q",
                                                             "--baseline", many_runs.BASELINE, "-f", "tsv"], self.t)
                        tables[side] = pg.parse_tsv(text, 1) if text is not None else why
                    agreement.append(self.agreement_row(f"leaderboard -f tsv, {n + 1:,} runs", tables))
                for site in sites.values():
                    shutil.rmtree(site, ignore_errors=True)
                b.remove_db(Path(dbs["duck"]))
                self.server.drop("bench_scale_board")
            for step in self.STEPS:
                rows.append([step, *self.pair(results[f"duck {step}"], results[f"pg {step}"]), f"<= {RATIO:g}x"])
            for row in rows[-len(self.STEPS) - 4:]:   # this size's rows as they are known (a long run may be stopped)
                pg.log("    " + " | ".join(row))
            b.remove_db(base)
            self.server.drop(base_name)
            pg.log(f"  [pg-scale] {n} runs done in {time.monotonic() - started:.0f} s")
        table = h.Table(f"{TITLE}: {', '.join(f'{n:,}' for n in self.scale())} stored runs of 5,000 lines",
                        ["job", "DuckDB file", "PostgreSQL", "PostgreSQL / DuckDB", "goal"], rows)
        table.notes.append(
            f"median of up to {b.repeats} (one where a repeat took over {h.REPEAT_CAP} s); each cell: wall (spawn to "
            "exit), the irw process's peak memory, on PostgreSQL the server's cpu seconds during the command, and "
            "the 1-minute load average when the command started")
        table.notes.append(
            f"PostgreSQL {self.server.version()} from scripts/postgres.sh (127.0.0.1, fsync off, shared_buffers "
            f"{self.server.setting('shared_buffers')}, work_mem {self.server.setting('work_mem')}); the build is "
            "Warehouse.ingest_run of every run into each warehouse, then every command runs on a copy of it")
        b.emit(table)
        b.emit(h.Table(f"Agreement: PostgreSQL against DuckDB (equal at {pg.DECIMALS} decimals)",
                       ["numbers", "rows", "values compared", "differing", "largest difference", "first differences"],
                       agreement))

    def build_cells(self, builds: dict, key: str, second: str | None = None) -> list[str]:
        h = self.h
        out = []
        for side in ("duck", "pg"):
            s = builds[side]
            if s.error:
                out.append(f"failed: {s.error}")
                continue
            value = s.job if key == "job" else s.info.get(key)
            text = h.secs(value) if value is not None else "-"
            if second:
                other = s.info.get(second)
                text += f" / {h.secs(other) if other is not None else '-'}"
            if key == "job":
                text += f", {h.mem(s.rss)}, load {s.info['load']:.1f}"
            out.append(text)
        ratio = ""
        if not any(s.error for s in builds.values()):
            a = builds["duck"].job if key == "job" else builds["duck"].info.get(key)
            c = builds["pg"].job if key == "job" else builds["pg"].info.get(key)
            if a and c:
                ratio = h.times(c / a)
        return [*out, ratio]

    def pair(self, duck, pgr) -> list[str]:
        h = self.h

        def cell(res, on_server: bool) -> str:
            if not res.samples:
                return "-"
            if res.error:
                return f"failed: {res.error}"
            text = f"{h.secs(res.median('wall'))}, {h.mem(res.median('rss'))}"
            if on_server:
                cpu = [s.info["server cpu"] for s in res.ok if "server cpu" in s.info]
                if cpu:
                    text += f", server cpu {h.secs(statistics.median(cpu))}"
            loads = [s.info["load"] for s in res.ok if "load" in s.info]
            if loads:
                text += f", load {min(loads):.1f}-{max(loads):.1f}" if len(loads) > 1 else f", load {loads[0]:.1f}"
            return text

        ratio = pgr.median("wall") / duck.median("wall") if duck.samples and pgr.samples and not (
            duck.error or pgr.error) else math.nan
        return [cell(duck, False), cell(pgr, True), h.times(ratio)]

    @staticmethod
    def agreement_row(label: str, tables: dict) -> list[str]:
        failed = [f"{side}: {t}" for side, t in tables.items() if isinstance(t, str)]
        if failed:
            return [label, "failed: " + "; ".join(failed), "", "", "", ""]
        result = pg.compare(tables["duck"], tables["pg"])
        return [label, f"{result['rows']:,}", f"{result['compared']:,}", str(len(result["differing"])),
                f"{result['worst']:.1e}", "; ".join(result["differing"][:3])]


