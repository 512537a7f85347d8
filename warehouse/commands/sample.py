"""Deterministic sample data: a graded qrels file and runs of varied quality.

The demo and the tests use it; nothing here is random between calls with the same seed.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SystemSpec:
    name: str
    skill: float          # weight of the true grade in the score; 0 is a random ranking
    depth: int            # documents returned per query
    decimals: int = 4     # score precision; 1 or 2 decimals make many ties
    drop_queries: int = 0  # queries missing from the run (a truncated run)
    description: str = ""


DEMO_SYSTEMS = (
    SystemSpec("bm25", 1.0, 1000, description="BM25, k1=0.9 b=0.4"),
    SystemSpec("bm25-rm3", 1.3, 1000, description="BM25 with RM3 expansion"),
    SystemSpec("dense", 1.8, 1000, decimals=2, description="dual encoder; scores rounded, many ties"),
    SystemSpec("rerank", 2.6, 100, description="cross-encoder over the top 100"),
    SystemSpec("random", 0.0, 500, description="a random ranking, the floor"),
    SystemSpec("bm25-trunc", 1.0, 100, drop_queries=5, description="BM25 cut to 100, five queries lost"),
)


CANDIDATES = 1000  # unjudged documents competing with the judged ones in every ranking


def query_ids(count: int) -> list[str]:
    return [str(1000 + i) for i in range(count)]


def write_qrels(path: Path, queries: list[str], seed: int = 7) -> dict[str, dict[str, int]]:
    """About 60 judgments a query, grades 0-3; the last query has no relevant document."""
    rng = random.Random(seed)
    judgments: dict[str, dict[str, int]] = {}
    with open(path, "w", encoding="utf-8") as out:
        for index, qid in enumerate(queries):
            docs = rng.sample(range(5000), 60)
            grades = {}
            for doc in docs:
                grade = rng.choices((0, 1, 2, 3), weights=(60, 20, 12, 8))[0]
                if index == len(queries) - 1:
                    grade = 0
                grades[f"D{doc:05d}"] = grade
                out.write(f"{qid} 0 D{doc:05d} {grade}\n")
            judgments[qid] = grades
    return judgments


def write_run(path: Path, spec: SystemSpec, judgments: dict[str, dict[str, int]], seed: int) -> None:
    rng = random.Random(seed)
    queries = list(judgments)
    dropped = set(rng.sample(queries, spec.drop_queries)) if spec.drop_queries else set()
    with open(path, "w", encoding="utf-8") as out:
        for qid in queries:
            if qid in dropped:
                continue
            grades = judgments[qid]
            # the same number of unjudged candidates for every system, so a shallower run is the
            # deeper one cut short rather than an easier ranking problem
            pool = list(grades) + [f"D{d:05d}" for d in rng.sample(range(5000, 20000), CANDIDATES)]
            scored = []
            for doc in pool:
                score = spec.skill * grades.get(doc, 0) + rng.gauss(0.0, 1.0) + 10.0
                scored.append((round(score, spec.decimals), doc))
            scored.sort(key=lambda pair: (-pair[0], pair[1]))
            for rank, (score, doc) in enumerate(scored[: spec.depth], start=1):
                out.write(f"{qid} Q0 {doc} {rank} {score:.{spec.decimals}f} {spec.name}\n")


def write_sample(directory: Path, queries: int = 50, systems=DEMO_SYSTEMS, seed: int = 7) -> tuple[Path, list[Path]]:
    """Writes qrels.txt and one run file per system into directory; returns their paths."""
    from warehouse.formats.files import check_output

    directory.mkdir(parents=True, exist_ok=True)
    qrels_path = directory / "qrels.txt"
    for path in [qrels_path, *(directory / f"run.{spec.name}.txt" for spec in systems)]:
        check_output(path, "folder")  # never over a warehouse or another database, before any is written
    judgments = write_qrels(qrels_path, query_ids(queries), seed)
    run_paths = []
    for offset, spec in enumerate(systems, start=1):
        path = directory / f"run.{spec.name}.txt"
        write_run(path, spec, judgments, seed * 1000 + offset)
        run_paths.append(path)
    return qrels_path, run_paths
