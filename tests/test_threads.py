"""Several threads of one process, each with its own warehouse.open of one file, as docs/python.md
says to use a warehouse from threads: DuckDB runs their transactions side by side, so irw's
writers take turns on the file (warehouse/engines/duckdb.py, _writer_lock) as writers in several
processes do by its file lock. Found by a Python user's walk: four threads evaluating four runs
with the same measures failed at commit on the measures' primary key, in 3 of 3 tries."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

import warehouse
from conftest import dl19_expected

RUNS = ("BM25", "BM25_RM3", "D_BERT_KD_TASB", "OPEN_AI_ADA2")


def _in_threads(work, items) -> dict:
    """work(item) in a thread per item, all started at once; item -> its value or the exception it raised."""
    start = threading.Barrier(len(items))
    outcome: dict = {}

    def body(item):
        start.wait()
        try:
            outcome[item] = work(item)
        except Exception as exc:  # noqa: BLE001 - what the thread met is the test's to judge
            outcome[item] = exc

    threads = [threading.Thread(target=body, args=(item,)) for item in items]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return outcome


def _qrels(conformance: Path) -> Path:
    return conformance / "dl19-passage" / "qrels.dl19-passage.txt"


def _run(conformance: Path, name: str) -> Path:
    return conformance / "dl19-passage" / "runs" / f"run.dl19.{name}.txt"


@pytest.mark.parametrize("attempt", range(3))
def test_threads_evaluating_their_runs_with_the_same_measures_at_once_all_get_trec_eval_s_numbers(
        conformance, tmp_path, attempt):
    db = tmp_path / "irw.duckdb"
    with warehouse.open(db) as wh:
        wh.ingest_qrels(_qrels(conformance), "dl19")
        for name in RUNS:
            wh.ingest_run(_run(conformance, name), name=name)

    def evaluate(name):
        with warehouse.open(db) as wh:
            evaluation = wh.evaluate([name], "dl19", ["nDCG@10", "P@10"])
            return evaluation.value(name, "nDCG@10"), evaluation.value(name, "P@10")

    outcome = _in_threads(evaluate, RUNS)
    for name in RUNS:
        assert not isinstance(outcome[name], Exception), f"{name}: {outcome[name]!r}"
        expected = dl19_expected(conformance, name)
        assert f"{outcome[name][0]:.4f}" == expected[("ndcg_cut_10", "all")]
        assert f"{outcome[name][1]:.4f}" == expected[("P_10", "all")]
    with warehouse.open(db, read_only=True) as wh:  # each score stored once
        assert wh.sql("select count(*), count(distinct (run_id, query_id, measure)) from scores").rows[0] == (
            2 * 43 * len(RUNS), 2 * 43 * len(RUNS))


def test_threads_opening_one_new_warehouse_at_once_each_store_their_run(conformance, tmp_path):
    db = tmp_path / "new.duckdb"

    def ingest(name):
        with warehouse.open(db) as wh:
            return wh.ingest_run(_run(conformance, name), name=name).status

    outcome = _in_threads(ingest, RUNS)
    assert outcome == dict.fromkeys(RUNS, "ingested")
    with warehouse.open(db, read_only=True) as wh:
        assert sorted(wh.sql("select name from runs").column("name")) == sorted(RUNS)


def test_threads_storing_one_qrels_set_at_once_store_it_once_and_the_others_are_told_to_try_again(
        conformance, tmp_path):
    db = tmp_path / "irw.duckdb"
    warehouse.open(db).close()

    def ingest(thread):
        with warehouse.open(db) as wh:
            return wh.ingest_qrels(_qrels(conformance), "dl19").status

    outcome = _in_threads(ingest, range(4))
    for value in outcome.values():
        # a thread that looked before another stored the set is told so, as a second client of
        # a PostgreSQL warehouse is; one that looked after finds the set stored
        if isinstance(value, Exception):
            assert isinstance(value, warehouse.ConflictError), repr(value)
            assert str(value).startswith("another writer in this process stored 'dl19' meanwhile")
            assert str(value).endswith("try again (it then finds what the other writer stored)")
    assert "ingested" in outcome.values()
    with warehouse.open(db) as wh:
        assert wh.sql("select name from qrels_sets").rows == [("dl19",)]
        assert wh.ingest_qrels(_qrels(conformance), "dl19").status == "unchanged"
