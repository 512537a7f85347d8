"""Preference judgments in the warehouse (schema 014): `irw ingest prefs`, the prefs_* measures as
stored scores of `irw eval` against a prefs set (equal to trec_eval's own out.test.prefs), a bad
file refused with nothing stored, and an older warehouse upgraded."""
from __future__ import annotations

import re

import pytest

import warehouse
from warehouse.errors import InputFileError, MeasureError
from warehouse.evaluation.measures import PREFS_FAMILIES

from conftest import CONFORMANCE, write_file

FOLDER = CONFORMANCE / "trec_eval_test"


def _expected_summary() -> dict[str, str]:
    lines = (FOLDER / "out.test.prefs").read_text().splitlines()
    return {line.split("\t")[0].rstrip(): line.split("\t")[2] for line in lines if "\tall\t" in line}


@pytest.mark.conformance
@pytest.mark.usefixtures("conformance")
def test_stored_prefs_measures_equal_trec_eval(irw):
    assert irw("ingest", "prefs", str(FOLDER / "prefs.test"), "--name", "p").exit_code == 0
    assert irw("ingest", "run", str(FOLDER / "prefs.results.test"), "--name", "std").exit_code == 0
    args = ["eval", "--qrels", "p", "--compat", "10", "--format", "csv"]
    for family in PREFS_FAMILIES:
        args += ["-m", family]
    result = irw(*args)
    assert result.exit_code == 0, result.stderr
    header, row = result.stdout.splitlines()[:2]
    values = dict(zip(header.split(","), row.split(",")))
    expected = _expected_summary()
    for family in PREFS_FAMILIES:
        value = float(values[family])
        if PREFS_FAMILIES[family].aggregate == "sum":
            assert f"{int(value)}" == expected[family], family
        else:
            assert f"{value:6.4f}".strip() == expected[family], family
    assert "ties by score, then docid ascending" in result.stderr


@pytest.mark.conformance
@pytest.mark.usefixtures("conformance")
def test_qrels_read_as_preferences(tmp_path):
    with warehouse.open(tmp_path / "w.duckdb") as wh:
        wh.ingest_prefs(FOLDER / "qrels.test", "qp", qrels_format=True)
        wh.ingest_run(FOLDER / "results.test", "std")
        evaluation = wh.evaluate("std", "qp", ["prefs_simp", "prefs_num_prefs_poss"], compat=10)
    expected = {line.split("\t")[0].rstrip(): line.split("\t")[2]
                for line in (FOLDER / "out.test.qrels_prefs").read_text().splitlines() if "\tall\t" in line}
    assert f"{evaluation.value('std', 'prefs_simp'):.4f}" == expected["prefs_simp"]
    assert str(evaluation.value("std", "prefs_num_prefs_poss")) == expected["prefs_num_prefs_poss"]


def _stored(wh) -> tuple:
    return tuple(wh.db.fetchone(f"select count(*) from {table}")[0]
                 for table in ("qrels_sets", "qrels", "preference_judgments", "preference_pairs"))


@pytest.mark.parametrize("content, reason", [
    ("1 g s d1 2\n1 g s d2 1\n1 g t d2 3\n1 g t d1 1\n", "prefers documents to themselves (d1, d2)"),
    ("1 g s d1 2\n1 g s d2\n", "prefs.txt:2: expected 5 fields"),
])
def test_a_bad_prefs_file_changes_nothing(tmp_path, content, reason):
    with warehouse.open(tmp_path / "w.duckdb") as wh:
        wh.ingest_prefs(write_file(tmp_path, "good.txt", "1 g s d1 2\n1 g s d2 1\n"), "p")
        before = _stored(wh)
        with pytest.raises(InputFileError, match=re.escape(reason)):
            wh.ingest_prefs(write_file(tmp_path, "prefs.txt", content), "p", replace=True)
        with pytest.raises(InputFileError, match=re.escape(reason)):
            wh.ingest_prefs(write_file(tmp_path, "prefs.txt", content), "other")
        assert _stored(wh) == before == (1, 2, 2, 1)


def test_the_cli_reports_a_cycle_as_one_error(irw, tmp_path):
    result = irw("ingest", "prefs", write_file(tmp_path, "cycle.txt", "1 g s a 2\n1 g s b 1\n1 g t b 2\n1 g t a 1\n"))
    assert result.exit_code == 1
    assert result.stderr.endswith("cycle.txt:1: judgment group g of query 1 prefers documents to themselves (a, b): "
                                  "its sub-groups form a cycle of preferences (a > b in one, b > a through the "
                                  "others); split the contradicting sub-groups into judgment groups of their own\n")
    assert result.stderr.count("Error:") == 1
    assert irw("qrels", "--format", "csv").stdout.splitlines()[1:] == []


def test_prefs_measures_need_a_prefs_set(tmp_path):
    with warehouse.open(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(write_file(tmp_path, "q.txt", "1 0 d1 1\n"), "q")
        wh.ingest_run(write_file(tmp_path, "r.txt", "1 Q0 d1 1 2 r\n"), "r")
        with pytest.raises(MeasureError, match="needs preference judgments, and qrels q has none: ingest them"):
            wh.evaluate("r", "q", ["prefs_simp"])


def test_an_older_warehouse_gains_the_preference_tables(tmp_path):
    path = tmp_path / "w.duckdb"
    with warehouse.open(path) as wh:
        wh.ingest_qrels(write_file(tmp_path, "q.txt", "1 0 d1 1\n"), "q")
        # back to schema 12, as a warehouse written before preference judgments is
        wh.db.execute("drop table preference_pairs")
        wh.db.execute("drop table preference_judgments")
        wh.db.execute("delete from irw_schema where version >= 13")
    with warehouse.open(path) as wh:
        assert wh.db.schema_version() >= 14
        wh.ingest_prefs(write_file(tmp_path, "p.txt", "1 g s d1 2\n1 g s d2 1\n"), "p")
        wh.ingest_run(write_file(tmp_path, "r.txt", "1 Q0 d2 1 2 r\n1 Q0 d1 2 1 r\n"), "r")
        assert wh.evaluate("r", "p", ["prefs_simp"]).value("r", "prefs_simp") == 0.0
        wh.remove_qrels("p")
        assert wh.db.fetchone("select count(*) from preference_pairs")[0] == 0


@pytest.mark.postgres
@pytest.mark.conformance
@pytest.mark.usefixtures("conformance")
def test_prefs_and_judgment_groups_on_postgresql(postgres_url):
    """The prefs set, the judgment groups and their measures on a PostgreSQL warehouse equal
    trec_eval's summary lines."""
    expected = _expected_summary()
    jg_expected = {line.split("\t")[0].rstrip(): line.split("\t")[2]
                   for line in (FOLDER / "out.test.qrels_jg").read_text().splitlines() if "\tall\t" in line}
    with warehouse.open(postgres_url) as wh:
        wh.ingest_prefs(FOLDER / "prefs.test", "p")
        wh.ingest_qrels(FOLDER / "qrels.123", "jg", subtopics=True)
        wh.ingest_run(FOLDER / "prefs.results.test", "std")
        wh.ingest_run(FOLDER / "results.test", "full")
        prefs = wh.evaluate("std", "p", list(PREFS_FAMILIES), compat=10)
        groups = wh.evaluate("full", "jg", ["map_avgjg", "P_avgjg_10", "Rprec_mult_avgjg_2.0"], compat=10)
    for family in PREFS_FAMILIES:
        value = prefs.value("std", family)
        assert (str(value) if PREFS_FAMILIES[family].aggregate == "sum" else f"{value:.4f}") == expected[family]
    assert {name: f"{groups.value('full', name):.4f}" for name in ["map_avgjg", "P_avgjg_10", "Rprec_mult_avgjg_2.00"]} \
        == {name: jg_expected[name] for name in ["map_avgjg", "P_avgjg_10", "Rprec_mult_avgjg_2.00"]}
