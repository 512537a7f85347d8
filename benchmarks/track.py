"""A whole track in one call (issue 27, target 3): `irw trec-eval QRELS RUN1 ... RUN100` against a
shell loop of trec_eval (C) over the same files, one process per run.

The runs are DL20-sized (53 queries x 100 documents, 5,300 lines): the TREC DL 2021 passage runs of
../shared/conformance/multi-collection (BM25, BM25_RM3, SPLADE++), run k being system k mod 3's
with each query's scores permuted among its documents by a generator seeded with k, so that every
run ranks differently and the files are the same on every machine. Also runnable alone:
`python benchmarks/track.py FOLDER [--runs N]` writes qrels.txt and runs/ there.
"""
from __future__ import annotations

import argparse
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
MULTI = HERE.parent.parent / "shared" / "conformance" / "multi-collection"
SYSTEMS = ("BM25", "BM25_RM3", "SPLADE_P_P_ENSEMBLE_DISTIL")


def available() -> bool:
    return all((MULTI / "runs" / system / "trec_results_dl21.txt").exists() for system in SYSTEMS) \
        and (MULTI / "qrels" / "qrels.dl21-passage.txt").exists()


def write_track(folder: Path, runs: int = 100) -> tuple[Path, list[Path]]:
    """(qrels, run files in name order) of `runs` permuted DL21 runs under folder."""
    folder.mkdir(parents=True, exist_ok=True)
    qrels = folder / "qrels.txt"
    qrels.write_bytes((MULTI / "qrels" / "qrels.dl21-passage.txt").read_bytes())
    sources = []
    for system in SYSTEMS:
        by_query: dict[str, list[list[str]]] = {}
        for line in (MULTI / "runs" / system / "trec_results_dl21.txt").read_text().splitlines():
            fields = line.split()
            by_query.setdefault(fields[0], []).append(fields)
        sources.append(by_query)
    (folder / "runs").mkdir(exist_ok=True)
    paths = []
    for k in range(runs):
        rng = random.Random(k)
        out = []
        for qid, rows in sources[k % len(sources)].items():
            scores = [row[4] for row in rows]
            rng.shuffle(scores)
            out.extend(f"{qid} Q0 {row[2]} {rank} {score} {row[5]}\n"
                       for rank, (row, score) in enumerate(zip(rows, scores), 1))
        path = folder / "runs" / f"run{k:03d}.txt"
        path.write_text("".join(out))
        paths.append(path)
    return qrels, paths


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--runs", type=int, default=100)
    ns = parser.parse_args()
    qrels, paths = write_track(ns.folder, ns.runs)
    print(f"{qrels} and {len(paths)} runs under {ns.folder / 'runs'}")


# -- the `track` section of benchmarks/run.py ------------------------------------------------------
TRACK_RUNS = 100          # issue 27's target: 100 DL20-sized runs
QUICK_TRACK_RUNS = 10
GOAL, AIM = 1.2, 2.0      # the shell loop's wall over irw's one call


def _job(run, cmd: list[str], timeout: float):
    """One process (run.py's launcher: wall spawn to exit, cpu, peak memory); the output's bytes
    are kept in info["output"] for the byte-for-byte check."""
    import tempfile

    with tempfile.TemporaryFile(mode="w+b") as out:
        start, end, cpu, rss, error = run._wait(cmd, out, timeout)
        out.seek(0)
        data = out.read()
    if error:
        return run.Sample(error=error, cpu=cpu, rss=rss)
    return run.Sample(wall=end - start, job=end - start, cpu=cpu, rss=rss,
                      info={"output": data, "output lines": data.count(b"\n")})


def section(bench, run) -> None:
    """`irw trec-eval QRELS RUN...` over a whole track in one process against a shell loop of
    trec_eval (C), one process per run, over the same files (with and without -q), interleaved in
    each repeat; the outputs compared byte for byte."""
    n = QUICK_TRACK_RUNS if bench.args.quick else TRACK_RUNS
    title = f"A whole track in one call: {n} DL20-sized runs (5,300 lines each), irw trec-eval vs a shell loop"
    if not available():
        bench.emit(run.Table(title, ["job", "result"], [["set-up", f"skipped: {MULTI} is absent"]]))
        return
    qrels, paths = write_track(bench.work / "track", n)
    files = [str(qrels), *map(str, paths)]
    timeout = bench.args.timeout
    jobs = {}
    for flags in ([], ["-q"]):
        label = "".join(f"{flag} " for flag in flags)
        jobs[f"irw trec-eval {label}QRELS RUN x{n} (one process)"] = \
            lambda flags=flags: _job(run, run.irw_command() + ["trec-eval", *flags, *files], timeout)
        if bench.trec_eval:
            # "$0" is trec_eval, $1 the qrels, the rest the runs: the loop a trec_eval user writes
            loop = 'q=$1; shift; for f in "$@"; do "$0" ' + " ".join(flags) + ' "$q" "$f" || exit 1; done'
            jobs[f"trec_eval (C) {label}in a shell loop ({n} processes)"] = \
                lambda loop=loop: _job(run, ["bash", "-c", loop, bench.trec_eval, *files], timeout)
    results = bench.repeat(jobs, "track")
    table = run.Table(title, ["job", "wall", "cpu", "peak memory", "output lines", "loop's wall / irw's",
                              "same bytes as the loop"])
    labels = list(jobs)
    for irw_label in labels[::2 if bench.trec_eval else 1]:
        res = results[irw_label]
        loop_res = results[labels[labels.index(irw_label) + 1]] if bench.trec_eval else None
        for label, r in ((irw_label, res), *(((loop_res.label, loop_res),) if loop_res else ())):
            if r.error:
                table.rows.append([label, f"failed: {r.error}", "", "", "", "", ""])
                continue
            ratio = same = ""
            if label == irw_label and loop_res and not loop_res.error and not res.error:
                value = loop_res.median("wall") / res.median("wall")
                ratio = f"{value:.2f}x"
                same = "yes" if all(s.info["output"] == loop_res.first.info["output"] for s in res.ok) else "NO"
                goal_met = value >= GOAL and same == "yes"
                bench.target(f"{label} vs trec_eval (C) in a shell loop (issue 27)", f">= {GOAL:g}x (aim {AIM:g}x), "
                             "same bytes", f"{ratio}, same bytes: {same}", goal_met,
                             set_here=not bench.args.quick)
            table.rows.append([label, run.secs(r.median("wall")), run.secs(r.median("cpu")), run.mem(r.median("rss")),
                               f"{int(r.info('output lines') or 0):,}", ratio, same])
        if not bench.trec_eval:
            bench.target(f"{irw_label} vs trec_eval (C) in a shell loop (issue 27)", f">= {GOAL:g}x (aim {AIM:g}x)",
                         f"trec_eval (C): {bench.trec_eval_note}; irw's one call {run.secs(res.median('wall'))}",
                         None)
    table.notes.append(f"runs: benchmarks/track.py (TREC DL 2021 passage runs of {MULTI.parent.name}/"
                       f"{MULTI.name}, each query's scores permuted, seeds 0..{n - 1}); default measures "
                       "(official) and -q; each job a whole process, interleaved in each repeat")
    if not bench.trec_eval:
        table.notes.append(f"trec_eval (C): {bench.trec_eval_note}")
    bench.emit(table)
