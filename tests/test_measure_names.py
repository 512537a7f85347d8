"""Measure names with parameters (`AP(rel=2)`, `R(rel=2)@1000`, `SetF(beta=0.5)`): one stored key per
score, equal to trec_eval's form with the same settings, repaired in warehouses that stored them wrong."""
from __future__ import annotations

import pytest

import warehouse
from warehouse import MeasureError, ReadOnlyError
from warehouse.resources import read_sql

from conftest import RUN_ROWS, run_text, write_file

QRELS = "q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d1 1\nq2 0 d9 2\n"


def _warehouse_with_a_run(db_path, tmp_path):
    wh = warehouse.open(db_path)
    wh.ingest_qrels(write_file(tmp_path, "q.qrels", QRELS), "q")
    wh.ingest_run(write_file(tmp_path, "a.run", run_text(RUN_ROWS, tag="a")))
    return wh


def test_rel_forms_equal_the_level_setting_in_either_order(db_path, tmp_path):
    with _warehouse_with_a_run(db_path, tmp_path) as wh:
        by_name = wh.evaluate("a", "q", ["AP(rel=2)", "R(rel=2)@2", "nDCG@2"])
        by_level = wh.evaluate("a", "q", ["AP", "R@2"], level=2)
        assert by_name.value("a", "AP(rel=2)") == by_level.value("a", "AP") > 0
        assert by_name.value("a", "R(rel=2)@2") == by_level.value("a", "R@2") > 0
        # stored once, under the name without rel=, in the level-2 evaluation
        assert sorted(wh.sql("select measure, level from score_values where level = 2 group by all").rows) == [
            ("AP", 2), ("R@2", 2)]


def test_a_warehouse_that_stored_rel_names_is_repaired_when_opened(db_path, tmp_path):
    with _warehouse_with_a_run(db_path, tmp_path) as wh:
        expected = wh.evaluate("a", "q", ["AP", "P@2"], level=2, per_query=True).per_query.rows
        # what irw before schema 6 wrote: scores under 'AP(rel=2)', bookkeeping under 'AP'; P@2's
        # bookkeeping with no scores at all
        wh.db.execute("update scores set measure = 'AP(rel=2)' where measure = 'AP'")
        wh.db.execute("delete from scores where measure = 'P@2'")
        with pytest.raises(MeasureError, match="AP, P@2 of run a: no value"):  # never an empty table
            wh.evaluate("a", "q", ["AP", "P@2"], level=2)
        # schema 006 as opening a schema-5 warehouse applies it (later migrations have other concerns)
        wh.db.execute(read_sql("schema/006_measure_keys_and_typed_settings.sql"))
    with warehouse.open(db_path) as wh:
        assert ("schema/006_measure_keys_and_typed_settings.sql",) in wh.sql("select name from irw_schema").rows
        assert wh.sql("select count(*) from scores where measure like '%rel=%'").rows == [(0,)]
        assert wh.evaluate("a", "q", ["AP", "P@2"], level=2, per_query=True).per_query.rows == expected


def test_a_read_only_warehouse_says_why_scores_never_computed_are_missing(db_path, tmp_path):
    with _warehouse_with_a_run(db_path, tmp_path) as wh:
        wh.evaluate("a", "q", ["AP"])
    with warehouse.open(db_path, read_only=True) as wh:
        assert wh.evaluate("a", "q", ["AP"]).value("a", "AP") > 0  # stored: read back
        with pytest.raises(ReadOnlyError, match=r"P@2 of run a .* never computed, and the warehouse is open "
                                                r"read-only: run `irw eval`"):
            wh.evaluate("a", "q", ["AP", "P@2"])
        with pytest.raises(ReadOnlyError, match="cannot be recomputed"):
            wh.evaluate("a", "q", ["AP"], recompute=True)


def test_recompute_replaces_the_stored_scores(db_path, tmp_path):
    with _warehouse_with_a_run(db_path, tmp_path) as wh:
        first = wh.evaluate("a", "q", ["AP", "P@2"], per_query=True).per_query.rows
        wh.db.execute("update scores set value = 0.123")  # a stored score gone wrong
        assert wh.evaluate("a", "q", ["AP"]).value("a", "AP") == 0.123
        again = wh.evaluate("a", "q", ["AP", "P@2"], per_query=True, recompute=True).per_query.rows
        assert again == first
        assert wh.sql("select count(*) from scores").rows == [(len(first),)]  # replaced, not added


def test_writes_on_a_read_only_warehouse_are_refused_by_irw(db_path, tmp_path):
    run = write_file(tmp_path, "b.run", run_text(RUN_ROWS, tag="b"))
    with _warehouse_with_a_run(db_path, tmp_path):
        pass
    for options in ({"read_only": True}, {"sandboxed": True}):
        with warehouse.open(db_path, **options) as wh:
            for action, call in [("ingest a run", lambda: wh.ingest_run(run)),
                                 ("ingest runs", lambda: wh.ingest_runs([run])),
                                 ("ingest qrels", lambda: wh.ingest_qrels(run, "x")),
                                 ("remove a run", lambda: wh.remove_run("a")),
                                 ("remove a qrels set", lambda: wh.remove_qrels("q"))]:
                with pytest.raises(ReadOnlyError, match=f"^cannot {action}: the warehouse .* is open read-only"):
                    call()
    with warehouse.open(db_path, read_only=True) as wh:
        assert [r[0] for r in wh.runs().rows] == ["a"]
