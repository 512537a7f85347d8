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
