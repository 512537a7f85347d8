"""Warehouses of many small runs for the tests of issue 12 (tests/test_many_runs.py and the
1,000-run page in tests/test_browser.py): 43 queries x 20 documents a run, long real-looking run
and system names, built through the library API (Warehouse.ingest_qrels / ingest_run), seeded.

The 1,000-run warehouse and its leaderboard and history pages are built once per test run
(thousand_runs) and shared, across pytest-xdist's workers too: its ingest is most of its minute."""
from __future__ import annotations

import atexit
import fcntl
import os
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

import numpy as np

import warehouse
from warehouse import reports

# a folder shared by the workers of one test run (tests/conftest.py sets it under pytest-xdist)
SHARED_ENV = "IRW_TEST_SHARED_DIR"

QUERIES = 43
DOCS = 20
CANDIDATES = 40
BASELINE = "bm25_tuned_k1_0.82_b_0.68_rm3_fb_docs_10_fb_terms_10_0000"


def run_name(s: int) -> str:
    kind = ("bm25_tuned_k1_0.82_b_0.68_rm3_fb_docs_10_fb_terms_10", "splade_pp_ensemble_distil_max_len_512",
            "dense_tas_b_hnsw_ef_search_1000_quantized_pq_96")[s % 3]
    return f"{kind}_{s:04d}"


def system_name(s: int) -> str:
    return f"team_{s % 37:02d}_" + ("lexical_retrieval" if s % 3 == 0 else "learned_sparse" if s % 3 == 1
                                     else "dense_retrieval")


def grades() -> np.ndarray:
    rng = np.random.default_rng(1)
    return (rng.random((QUERIES, CANDIDATES)) < 0.25).astype(int) * rng.integers(1, 4, (QUERIES, CANDIDATES))


def write_qrels(folder: Path) -> Path:
    g = grades()
    path = folder / "qrels.txt"
    path.write_text("".join(f"q{q} 0 doc-{q}-{i} {g[q, i]}\n" for q in range(QUERIES) for i in range(CANDIDATES)))
    return path


def write_run(folder: Path, s: int) -> Path:
    """Run s: a weight on the grade plus noise, the top DOCS candidates, 3 decimals (a few ties)."""
    rng = np.random.default_rng(1000 + s)
    scores = np.round(rng.uniform(0.1, 1.0) * grades() + rng.random((QUERIES, CANDIDATES)) * 2, 3)
    lines = []
    for q in range(QUERIES):
        order = np.argsort(-scores[q], kind="stable")[:DOCS]
        lines += [f"q{q} Q0 doc-{q}-{i} {rank} {scores[q, i]:.3f} t{s}\n" for rank, i in enumerate(order, start=1)]
    path = folder / f"run{s:04d}.txt"
    path.write_text("".join(lines))
    return path


def build(db: Path, runs: range) -> Path:
    """A warehouse at db with the qrels `q` and runs run_name(s) for s in runs (dated a day apart)."""
    folder = db.parent / "files"
    folder.mkdir(parents=True, exist_ok=True)
    with warehouse.open(db) as wh:
        if not wh.qrels_sets().rows:
            wh.ingest_qrels(write_qrels(folder), "q")
        for s in runs:
            add_run(wh, folder, s)
    return db


def add_run(wh, folder: Path, s: int) -> None:
    wh.ingest_run(write_run(folder, s), run_name(s), system=system_name(s),
                  description=f"run {s} of the sweep" if s % 4 == 0 else None,
                  date=f"2025-{1 + s // 28 % 12:02d}-{1 + s % 28:02d}T{s % 24:02d}:00:00")


@lru_cache(maxsize=1)
def thousand_runs() -> dict[str, Path]:
    """A warehouse of 1,000 runs and its reports, built once per test run: the leaderboard against
    BASELINE (with links to run pages, which are not written) and the history of AP. Under
    pytest-xdist (make test) its folder is shared by the workers (conftest.py's SHARED_ENV): the first
    to ask builds it under a lock while the others wait, then every one reads the same files."""
    shared = os.environ.get(SHARED_ENV)
    if not shared:
        folder = Path(tempfile.mkdtemp(prefix="irw-1000-runs-"))
        atexit.register(shutil.rmtree, folder, True)
        return _build_thousand_runs(folder)
    folder = Path(shared) / "1000-runs"
    with open(Path(shared) / "1000-runs.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the process ends
        if not (folder / "built").is_file():
            shutil.rmtree(folder, ignore_errors=True)  # what a worker that died while building left
            folder.mkdir()
            pages = _build_thousand_runs(folder)
            (folder / "built").touch()
            return pages
    return {"db": folder / "irw.duckdb", "leaderboard": folder / "board.html", "history": folder / "history.html"}


def _build_thousand_runs(folder: Path) -> dict[str, Path]:
    db = build(folder / "irw.duckdb", range(1000))
    with warehouse.open(db) as wh:
        board = reports.leaderboard(wh, "q", baseline=BASELINE, run_pages=True)
        (folder / "board.html").write_text(reports.render_leaderboard(board, "board_runs"), encoding="utf-8")
        history = reports.history(wh, "q", "AP")
        (folder / "history.html").write_text(reports.render_history(history), encoding="utf-8")
    return {"db": db, "leaderboard": folder / "board.html", "history": folder / "history.html"}


def thousand_run_board() -> Path:
    return thousand_runs()["leaderboard"]
