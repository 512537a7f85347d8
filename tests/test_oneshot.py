"""The one-shot path: `irw trec-eval` and warehouse.evaluate_files evaluate files in an in-memory
database without a warehouse's bookkeeping (warehouse/oneshot.py).

- the one-shot schema (sql/oneshot/schema.sql) has a migrated warehouse's columns, table by table;
- `-m all_trec` without -q keeps only the judged rows (relstring prints only with -q) and prints
  trec_eval's summary lines.
"""
from __future__ import annotations

import io

import pytest

import warehouse
from warehouse import ingest, oneshot, trec_eval


def _columns(db) -> dict[str, list[tuple[str, str]]]:
    rows = db.fetchall(
        "select table_name, column_name, data_type from information_schema.columns "
        "where table_catalog = current_database() and table_schema = 'main' "
        "order by table_name, ordinal_position")
    found: dict[str, list[tuple[str, str]]] = {}
    for table, column, kind in rows:
        found.setdefault(table, []).append((column, kind))
    return found


def test_oneshot_tables_have_a_migrated_warehouse_columns():
    with oneshot.database() as db:
        shot = _columns(db)
        has_history = db.fetchone("select count(*) from duckdb_tables() where table_name = 'irw_schema'")[0]
    with warehouse.open(":memory:") as wh:
        migrated = _columns(wh.db)
    assert not has_history
    assert {"qrels", "qrels_sets", "runs", "run_rows", "run_queries", "judged_run_rows", "scores",
            "measures", "evaluations", "evaluated", "qrels_subtopics"} <= set(shot)
    for table, columns in shot.items():
        if table in ("run_summary", "score_values"):  # views
            continue
        assert columns == migrated[table], table


def test_oneshot_database_is_in_memory_and_closed_after():
    with oneshot.database() as db:
        assert db.path == ":memory:"
    with pytest.raises(warehouse.WarehouseClosed):
        db.fetchone("select 1")


def test_all_trec_without_q_reads_judged_rows_only(conformance, monkeypatch):
    """relstring, the one all_trec measure that reads unjudged rows, prints only per-query lines:
    without -q the run keeps only its judged rows, and the summary is trec_eval's."""
    folder = conformance / "dl19-passage"
    expected = "".join(line for line in (folder / "expected_run.dl19.BM25.all_trec.q.v9.txt").read_text()
                       .splitlines(keepends=True) if line.split("\t")[1] == "all")
    judged_rows_only = []
    original = ingest.ingest_run

    def spy(*a, **k):
        judged_rows_only.append(k.get("judged_rows_only"))
        return original(*a, **k)

    monkeypatch.setattr(ingest, "ingest_run", spy)
    monkeypatch.chdir(folder)
    out = io.StringIO()
    trec_eval.run(["-m", "all_trec", "qrels.dl19-passage.txt", "runs/run.dl19.BM25.txt"], out)
    assert out.getvalue() == expected
    assert judged_rows_only == [True]
    out = io.StringIO()
    trec_eval.run(["-q", "-m", "all_trec", "qrels.dl19-passage.txt", "runs/run.dl19.BM25.txt"], out)
    assert judged_rows_only == [True, False]  # relstring prints every query's top documents

