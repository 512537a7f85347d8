"""Preference judgments in the warehouse (schema 014): `irw ingest prefs`, the prefs_* measures as
stored scores of `irw eval` against a prefs set (equal to trec_eval's own out.test.prefs), a bad
file refused with nothing stored, and an older warehouse upgraded."""
from __future__ import annotations

import io
import random
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
def test_irw_eval_takes_trec_eval_s_names_for_the_prefs_and_judgment_group_sets(irw):
    """`-m all_prefs` and `-m qrels_jg`, the measure sets `irw trec-eval` takes with -R prefs and -R
    qrels_jg, were "unknown measure" to `irw eval`: each is its measures, trec_eval's numbers; on a
    set without such judgments the message names a few and how many more."""
    assert irw("ingest", "prefs", str(FOLDER / "prefs.test"), "--name", "p").exit_code == 0
    assert irw("ingest", "qrels", str(FOLDER / "qrels.123"), "--subtopics", "--name", "jg").exit_code == 0
    assert irw("ingest", "qrels", str(FOLDER / "qrels.test"), "--name", "plain").exit_code == 0
    assert irw("ingest", "run", str(FOLDER / "prefs.results.test"), "--name", "std").exit_code == 0
    assert irw("ingest", "run", str(FOLDER / "results.test"), "--name", "full").exit_code == 0
    for qrels, nickname, run, out in (("p", "all_prefs", "std", "out.test.prefs"),
                                      ("jg", "qrels_jg", "full", "out.test.qrels_jg")):
        expected = {line.split("\t")[0].rstrip(): line.split("\t")[2]
                    for line in (FOLDER / out).read_text().splitlines() if "\tall\t" in line}
        result = irw("eval", run, "--qrels", qrels, "-m", nickname, "--compat", "10", "--format", "csv")
        assert result.exit_code == 0, result.stderr
        header, row = result.stdout.splitlines()
        values = dict(zip(header.split(","), row.split(",")))
        measures = [name for name in expected if name not in ("runid", "num_q")]
        assert header.split(",")[2:] == ["NumQ", *measures], nickname  # num_q by its ir_measures name, as in all_trec
        for name in measures:
            value = float(values[name])
            shown = f"{int(value)}" if float(expected[name]).is_integer() and "." not in expected[name] else f"{value:.4f}"
            assert shown == expected[name], (nickname, name)
    result = irw("eval", "full", "--qrels", "plain", "-m", "qrels_jg")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: P_avgjg_10, P_avgjg_100, P_avgjg_1000 and 17 more need judgment groups, "
                                    "and qrels plain has none")


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
                 for table in ("qrels_sets", "qrels", "preference_judgments", "preference_pairs", "preferences"))


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
        assert _stored(wh) == before == (1, 2, 2, 0, 1)


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
        wh.db.execute("drop view preferences")
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


# -- a group of one sub-group, counted from its levels -------------------------------------------
def _random_levels(seed: int) -> tuple[list[tuple], str]:
    """Groups of one sub-group (query, jg, doc, level), several per query in some queries, and a
    run retrieving some of their documents (and others), with tied scores."""
    rnd = random.Random(seed)
    docs = [f"d{i}" for i in range(12)]
    rows, run = [], []
    for query in ("q1", "q2", "q3"):
        for jg in range(rnd.choice((1, 2, 3))):
            for doc in rnd.sample(docs, rnd.randint(1, len(docs))):
                rows.append((query, f"g{jg}", doc, rnd.choice((0, 0, 1, 2, 3, 0.5))))
        for rank, doc in enumerate(rnd.sample([*docs, "x1", "x2"], rnd.randint(1, 10)), 1):
            run.append(f"{query} Q0 {doc} {rank} {rnd.choice((9.5 - rank, 4.0))} r\n")
    return rows, "".join(run)


def _as_subgroups(rows: list[tuple]) -> str:
    """The same preferences from groups of several sub-groups: one sub-group per two adjacent levels
    of a group (its documents of the higher level over those of the lower; a document rated 0
    stays 0, as a group may not rate it 0 and above 0), closed transitively at ingest, and the
    first sub-group again, so that even a group of one level has several."""
    lines = []
    groups: dict[tuple, list] = {}
    for query, jg, doc, level in rows:
        groups.setdefault((query, jg), []).append((doc, level))
    for (query, jg), members in groups.items():
        levels = sorted({level for _, level in members}, reverse=True)
        pairs = list(zip(levels, levels[1:])) or [(levels[0], None)]
        for number, (high, low) in enumerate([*pairs, pairs[0]]):
            for doc, level in members:
                if level == high:
                    lines.append(f"{query} {jg} s{number} {doc} {2 if high > 0 else 0}\n")
                elif level == low:
                    lines.append(f"{query} {jg} s{number} {doc} {1 if low > 0 else 0}\n")
    return "".join(lines)


@pytest.mark.parametrize("seed", range(6))
def test_preferences_counted_from_levels_equal_the_same_preferences_stored_as_pairs(tmp_path, seed):
    """prefs.sql counts a group of one sub-group from its levels and reads the stored closure of a
    group of several: two ways to the same numbers. Written both ways (the second a chain of
    sub-groups whose closure is the first's preferences), every measure but avgjg_Rnonrel's (whose
    recalculation trec_eval defines differently for the two) is the same in every query, at every
    depth."""
    from warehouse.commands import trec_eval

    rows, run = _random_levels(seed)
    one = write_file(tmp_path, "one.txt", "".join(f"{q} {jg} 0 {doc} {level}\n" for q, jg, doc, level in rows))
    several = write_file(tmp_path, "several.txt", _as_subgroups(rows))
    run_file = write_file(tmp_path, "run.txt", run)
    measures = [m for family in PREFS_FAMILIES if "Rnonrel" not in family for m in ("-m", family)]
    for depth in ([], ["-M", "3"]):
        printed = []
        for prefs in (one, several):
            out = io.StringIO()
            trec_eval.run(["-q", *depth, *measures, "-R", "prefs", str(prefs), str(run_file)], out)
            printed.append(out.getvalue())
        assert printed[0] == printed[1], (seed, depth)
        assert "\tq1\t" in printed[0] and "prefs_pair" in printed[0]


@pytest.mark.conformance
@pytest.mark.usefixtures("conformance")
def test_a_qrels_file_read_as_preferences_stores_its_lines_not_its_pairs(tmp_path):
    """trec_eval's qrels.test read as preferences holds 669,704 preferences (out.test.qrels_prefs,
    three queries): schema 14 stored each as a row of preference_pairs. A group of one sub-group now
    stores only its lines; the view preferences lists every preference."""
    with warehouse.open(tmp_path / "w.duckdb") as wh:
        wh.ingest_prefs(FOLDER / "qrels.test", "qp", qrels_format=True)
        lines = sum(1 for line in (FOLDER / "qrels.test").read_text().splitlines() if line.strip())
        assert wh.db.fetchone("select count(*) from preference_judgments")[0] == lines
        assert wh.db.fetchone("select count(*) from preference_pairs")[0] == 0
        wh.ingest_run(FOLDER / "results.test", "std")
        evaluation = wh.evaluate("std", "qp", ["prefs_num_prefs_poss"], compat=10)
        assert evaluation.value("std", "prefs_num_prefs_poss") == 669704
        judged = wh.db.fetchone(
            "select count(*) from preferences as p where p.query_id in "
            "(select query_id from run_queries where run_id = (select run_id from runs where name = 'std'))")[0]
        assert judged == 669704


def test_a_schema_18_warehouse_keeps_every_preference_and_its_numbers(tmp_path):
    """Migration 19 keeps in preference_pairs the pairs of groups of several sub-groups and drops
    those of groups of one sub-group, which the view preferences forms again: the same preferences,
    and the same values, before and after."""
    path = tmp_path / "w.duckdb"
    prefs = "1 g s a 2\n1 g s b 1\n1 g t b 2\n1 g t c 0\n1 h s a 1\n1 h s c 0\n2 g s a 3\n2 g s b 0\n2 g s c 1\n"
    families = list(PREFS_FAMILIES)
    with warehouse.open(path) as wh:
        wh.ingest_prefs(write_file(tmp_path, "p.txt", prefs), "p")
        wh.ingest_run(write_file(tmp_path, "r.txt", "1 Q0 c 1 3 r\n1 Q0 a 2 2 r\n2 Q0 b 1 2 r\n2 Q0 a 2 1 r\n"), "r")
        before = {f: wh.evaluate("r", "p", families).value("r", f) for f in families}
        every = sorted(wh.db.fetchall("select * from preferences"))
        # back to schema 18: every preference in preference_pairs, no view preferences
        wh.db.execute("insert into preference_pairs select * from preferences except select * from preference_pairs")
        wh.db.execute("drop view preferences")
        assert sorted(wh.db.fetchall("select * from preference_pairs")) == every
        wh.db.execute("delete from scores")
        wh.db.execute("delete from evaluated")
        wh.db.execute("delete from irw_schema where version >= 19")
    with warehouse.open(path) as wh:
        assert wh.db.schema_version() >= 19
        assert sorted(wh.db.fetchall("select * from preferences")) == every
        assert sorted(wh.db.fetchall("select query_id, jg, doc_id, other_doc_id from preference_pairs")) == [
            ("1", "g", "a", "b"), ("1", "g", "a", "c"), ("1", "g", "b", "c")]
        assert {f: wh.evaluate("r", "p", families).value("r", f) for f in families} == before
