"""Measure names with parameters (`AP(rel=2)`, `R(rel=2)@1000`, `SetF(beta=0.5)`): one stored key per
score, equal to trec_eval's form with the same settings, repaired in warehouses that stored them wrong."""
from __future__ import annotations

import io
import re

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
        with pytest.raises(ReadOnlyError, match=r"P@2 of run a: never computed with these settings .*\n.*open "
                                                r"read-only .*\.evaluate\(None, 'q', \['P@2'\]\)$"):
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


def test_a_value_is_read_back_under_any_name_evaluate_took(conformance, db_path):
    """Evaluation.value takes a measure as evaluate takes it: `ndcg_cut.10` asked of evaluate was
    stored as nDCG@10, and `ev.value(run, 'ndcg_cut.10')` was a bare KeyError. A run or measure the
    evaluation lacks says what it holds (a KeyError still, for code that catches one)."""
    from conftest import dl19_expected
    from warehouse import NotEvaluated

    folder = conformance / "dl19-passage"
    expected = dl19_expected(conformance, "BM25")
    with warehouse.open(db_path) as wh:
        wh.ingest_qrels(folder / "qrels.dl19-passage.txt", "dl19")
        wh.ingest_run(folder / "runs" / "run.dl19.BM25.txt", "BM25")
        ev = wh.evaluate(["BM25"], "dl19", ["ndcg_cut.10", "P.5", "map"])
    for names, trec_name in ((("ndcg_cut.10", "ndcg_cut_10", "nDCG@10"), "ndcg_cut_10"),
                             (("P.5", "P_5", "P@5"), "P_5"), (("map", "AP"), "map")):
        for name in names:
            assert f"{ev.value('BM25', name):.4f}" == expected[(trec_name, "all")], name
    with pytest.raises(NotEvaluated, match=r"^run 'BM25_RM3' is not in this evaluation; its runs: BM25$"):
        ev.value("BM25_RM3", "AP")
    with pytest.raises(KeyError, match=r"^RR is not in this evaluation; its measures: nDCG@10, P@5, AP$"):
        ev.value("BM25", "recip_rank")
    with pytest.raises(MeasureError, match=r"P\.5,10 names 2 measures \(P@5, P@10\): name one"):
        ev.value("BM25", "P.5,10")


@pytest.mark.parametrize("typed, meant, names", [
    ("P@10,20", "P.10,20", ["P@10", "P@20"]),
    ("nDCG@5,10", "ndcg_cut.5,10", ["nDCG@5", "nDCG@10"]),
    ("ndcg_cut@5,10", "ndcg_cut.5,10", ["nDCG@5", "nDCG@10"]),
    ("recall@100,1000", "recall.100,1000", ["R@100", "R@1000"]),
    ("AP@5,10", "map_cut.5,10", ["AP@5", "AP@10"]),
])
def test_a_list_of_cutoffs_after_at_points_to_trec_eval_s_list(typed, meant, names, conformance):
    """`-m P@10,20` said only "unknown measure": the hint is trec_eval's list, which both commands take."""
    import io
    from warehouse.commands import trec_eval
    from warehouse.evaluation.measures import parse

    hint = f"did you mean {meant} ({', '.join(names)})?"
    with pytest.raises(MeasureError, match=re.escape(f"unknown measure '{typed}'; {hint}")):
        parse(typed)
    assert [m.name for m in parse(meant)] == names
    dl19 = conformance / "dl19-passage"
    files = [str(dl19 / "qrels.dl19-passage.txt"), str(dl19 / "runs" / "run.dl19.BM25.txt")]
    with pytest.raises(MeasureError) as refused:
        trec_eval.run(["-m", typed, *files], io.StringIO())
    assert f"unknown measure '{typed}'; {hint} irw trec-eval takes" in str(refused.value)
    printed = io.StringIO()
    trec_eval.run(["-m", meant, *files], printed)
    assert len(printed.getvalue().splitlines()) == len(names)


@pytest.mark.parametrize("typed, meant", [("iprec_at_recall_0_10", "IPrec@0.1"), ("iprec_at_recall_0_50", "IPrec@0.5"),
                                          ("iprec_at_recall_1_00", "IPrec@1")])
def test_a_printed_iprec_name_with_its_point_typed_as_underscore_means_that_level(typed, meant):
    """`-m iprec_at_recall_0_10` offered IPrec@10, which evaluates at recall 10 and gives 0 for every
    run (a user-measure walk followed it): the hint is trec_eval's iprec_at_recall_0.10."""
    from warehouse.evaluation.measures import parse

    with pytest.raises(MeasureError, match=re.escape(f"unknown measure '{typed}'; did you mean {meant}?")):
        parse(typed)


@pytest.mark.parametrize("typed", ["SetF(beta=-1)", "SetF(beta=nan)", "SetF(beta=inf)", "set_F.-1", "set_F.nan",
                                   "set_F.1e400"])
def test_a_negative_or_infinite_beta_is_refused_where_irw_names_the_measure(typed, tmp_path):
    """A lab walk's SetF(beta=-1) was taken: nan for some runs, 0 for others. irw's names refuse it,
    in either spelling (irw eval -m set_F.-1 stored SetF(beta=-1): a regression hunt); trec_eval's
    set_F.-1, in irw trec-eval, stays trec_eval's arithmetic."""
    from warehouse.evaluation.measures import parse

    with pytest.raises(MeasureError, match=re.escape(f"{typed}: beta must be a finite number of at least 0")):
        parse(typed)
    # -0 is 0: one measure, one key (SetF(beta=-0) was stored beside SetF(beta=0), a regression hunt)
    assert [m.name for m in parse("SetF(beta=-0)")] == [m.name for m in parse("set_F.-0.0")] \
        == [m.name for m in parse("SetF(beta=0)")]
    qrels = write_file(tmp_path, "q.txt", "q1 0 d1 1\n")
    run = write_file(tmp_path, "r.txt", run_text([("q1", "d1", 1, "2"), ("q1", "d2", 2, "1")]))
    from warehouse.commands import trec_eval

    printed = io.StringIO()
    trec_eval.run(["-m", "set_F.-1", str(qrels), str(run)], printed)
    assert printed.getvalue().split()[0] == "set_F_-1"


def test_a_recall_level_above_one_is_said_to_give_zeros(seeded_db):
    """IPrec@10 (trec_eval's iprec_at_recall.10, which it takes) is 0 for every run: said beside the
    settings, with the level meant most likely; irw trec-eval prints trec_eval's bytes and no note."""
    from conftest import Cli

    result = Cli(seeded_db)("eval", "-m", "IPrec@10", "-m", "IPrec@0.1", "-f", "csv")
    assert result.exit_code == 0, result.stderr
    assert ("# IPrec@10: recall level 10 is above 1, which no ranking reaches, so every value is 0 (as trec_eval's "
            "iprec_at_recall.10); IPrec@0.1 is the precision at 10% recall") in result.stderr.splitlines()
    assert "IPrec@0.1:" not in result.stderr
    assert [line.split(",")[2] for line in result.stdout.splitlines()[1:]] == ["0.0"]


def test_names_of_one_measure_make_one_column_and_say_so(tmp_path, conformance):
    """A newcomer's `-m hit(k=1) -m hit@1` and `-m P@10 -m P_10 -m P.10` each gave one column and
    said nothing; a note names the spellings and the column (a set, P.5,10, is not a spelling)."""
    from conftest import dl19_cli

    irw = dl19_cli(conformance, tmp_path, runs=("BM25",))
    result = irw("eval", "-m", "P@10", "-m", "P_10", "-m", "P.10", "-m", "AP(rel=1)", "-m", "AP", "-m", "P.5,10", "BM25")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0].split() == ["run", "queries", "P@10", "AP", "P@5"]
    notes = result.stderr.splitlines()
    assert "# P@10, P_10 and P.10 name one measure, P@10: shown once" in notes
    assert "# AP(rel=1) and AP name one measure, AP: shown once" in notes
    assert not any("P.5,10" in note for note in notes)
    alone = irw("eval", "-m", "P@10", "-m", "AP", "BM25")
    assert not any("shown once" in line for line in alone.stderr.splitlines())
    # irw compare too (a regression walk): one row of each measure, and the same note
    irw("ingest", "run", conformance / "dl19-passage" / "runs" / "run.dl19.REP_LLAMA.txt", "--name", "REP_LLAMA")
    compared = irw("compare", "BM25", "REP_LLAMA", "--baseline", "BM25", "-m", "map", "-m", "AP", "-f", "csv")
    assert compared.exit_code == 0, compared.stderr
    assert [line.split(",")[0] for line in compared.stdout.splitlines()[1:]] == ["AP"]
    assert "# map and AP name one measure, AP: shown once" in compared.stderr.splitlines()
