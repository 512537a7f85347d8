"""The Python API given arguments of the wrong type: a run's parameters that are no mapping
(ingest_run, ingest_runs, edit_run), evaluate_files given qrels or runs that are neither a path nor
a data frame, and evaluate_files given its qrels and run the wrong way round. Each is refused
before anything is read or stored, with a UsageError (or, for swapped files, the SwappedFileError)
saying in Python's terms what was given and what to give."""
from __future__ import annotations

from pathlib import Path

import pytest

import warehouse
from warehouse import UsageError
from warehouse.ingestion.files import SwappedFileError


@pytest.fixture
def dl19(conformance: Path) -> Path:
    return conformance / "dl19-passage"


def _bm25(dl19: Path) -> Path:
    return dl19 / "runs" / "run.dl19.BM25.txt"


def _qrels(dl19: Path) -> Path:
    return dl19 / "qrels.dl19-passage.txt"


def _stored_parameters(wh) -> dict:
    return {name: parameters for name, parameters in wh.sql("select name, parameters from runs").rows}


# -- 1. parameters is a mapping of names to values ----------------------------------------------
@pytest.mark.parametrize("given, said", [
    (["k1"], "the list ['k1']"),
    ("k1=0.9", "the str 'k1=0.9': give parameters={'k1': '0.9'}"),
    (["k1=0.9", "b=0.4"], "give parameters={'k1': '0.9', 'b': '0.4'}"),
    ([("k1", "0.9")], "give parameters=dict(pairs)"),
    (42, "the int 42"),
], ids=["list-of-a-name", "str-as-the-cli-writes-it", "list-as-the-cli-writes-it", "list-of-pairs", "int"])
def test_edit_run_refuses_parameters_that_are_no_mapping_and_keeps_the_stored_ones(dl19, given, said):
    with warehouse.open(":memory:") as wh:
        wh.ingest_run(_bm25(dl19), name="r", parameters={"k1": "1.2"})
        with pytest.raises(UsageError) as caught:
            wh.edit_run("r", parameters=given)
        message = str(caught.value)
        assert message.startswith('parameters takes a mapping of names to values, e.g. parameters={"k1": "0.9"}; got ')
        assert said in message
        assert _stored_parameters(wh) == {"r": {"k1": "1.2"}}  # not {'k': '1'}, as dict(["k1"]) made it


@pytest.mark.parametrize("method", ["ingest_run", "ingest_runs"])
@pytest.mark.parametrize("given", ["k1=0.9", [("k1", "0.9")], {"k1": None}, {"k1": [0.9]}, {2: "0.9"}, {"": "0.9"}],
                         ids=["str", "list-of-pairs", "none-value", "list-value", "int-name", "empty-name"])
def test_an_ingest_refuses_parameters_that_are_no_mapping_of_names_to_values_and_stores_nothing(dl19, method, given):
    with warehouse.open(":memory:") as wh:
        with pytest.raises(UsageError, match=r'^parameters takes a mapping of names to values, e\.g\. parameters='):
            getattr(wh, method)(_bm25(dl19), name="r", parameters=given)
        assert wh.run_names() == []


def test_a_parameter_given_as_a_number_is_stored_as_its_text_as_before(dl19):
    with warehouse.open(":memory:") as wh:
        wh.ingest_run(_bm25(dl19), name="r", parameters={"k1": 0.9, "depth": 1000})
        assert _stored_parameters(wh) == {"r": {"k1": "0.9", "depth": "1000"}}
        assert wh.edit_run("r", parameters={"k1": 1.2}) == ["run r: parameters k1=1.2, was depth=1000, k1=0.9"]
        assert _stored_parameters(wh) == {"r": {"k1": "1.2"}}
        wh.edit_run("r", parameters={})  # an empty mapping still clears them
        assert _stored_parameters(wh) == {"r": {}}


def test_a_parameter_given_as_a_bool_is_said_as_it_is_stored(dl19):
    with warehouse.open(":memory:") as wh:
        wh.ingest_run(_bm25(dl19), name="r")
        assert wh.edit_run("r", parameters={"rm3": True}) == ["run r: parameters rm3=true, was none"]  # not rm3=True
        assert _stored_parameters(wh) == {"r": {"rm3": "true"}}


# -- 2. evaluate_files takes paths and data frames ------------------------------------------------
def test_evaluate_files_refuses_a_pytrec_eval_style_run_saying_it_takes_files_or_frames(dl19):
    with pytest.raises(UsageError) as caught:
        warehouse.evaluate_files(_qrels(dl19), {"bm25": {"19335": {"1017759": 1.0}}}, ["AP"])
    message = str(caught.value)
    assert message.startswith("evaluate_files takes runs as a path (a str or os.PathLike: a run file, a folder or "
                              "a glob pattern), a data frame (pandas, polars or Arrow)")
    assert "got the dict {'19335': {'1017759': 1.0}} as runs['bm25']: a pytrec_eval-style dict" in message
    assert "columns=['query_id', 'doc_id', 'score']" in message


def test_evaluate_files_refuses_a_polars_lazy_frame_saying_to_collect_it(dl19):
    polars = pytest.importorskip("polars")
    lazy = polars.DataFrame({"qid": ["19335"], "docno": ["1017759"], "score": [1.0]}).lazy()
    for runs in (lazy, [lazy]):
        with pytest.raises(UsageError, match=r"evaluate_files takes runs as .*; got a polars\.LazyFrame.*"
                                             r"collect it first, lazy_frame\.collect\(\)"):
            warehouse.evaluate_files(_qrels(dl19), runs, ["AP"])
    with pytest.raises(UsageError, match=r"evaluate_files takes qrels as .*; got a polars\.LazyFrame.*\.collect\(\)"):
        warehouse.evaluate_files(lazy, _bm25(dl19), ["AP"])


@pytest.mark.parametrize("runs, said", [
    (42, "got the int 42"),
    (None, "got None"),
    ([None], "got None as runs[0]"),
    (b"runs", "got the bytes b'runs': give a path as a str: os.fsdecode(path)"),
], ids=["int", "none", "list-with-none", "bytes"])
def test_evaluate_files_refuses_runs_that_are_neither_path_nor_frame_saying_what_it_takes(dl19, runs, said):
    with pytest.raises(UsageError) as caught:
        warehouse.evaluate_files(_qrels(dl19), runs, ["AP"])
    assert str(caught.value).startswith("evaluate_files takes runs as a path") and said in str(caught.value)


@pytest.mark.parametrize("qrels, said", [
    ({"19335": {"1017759": 1}}, "a pytrec_eval-style dict ({query: {doc: relevance}}) is not read"),
    (42, "got the int 42"),
    (["qrels.txt"], "one qrels set is evaluated at a time: give one file"),
], ids=["pytrec-eval-dict", "int", "list"])
def test_evaluate_files_refuses_qrels_that_are_neither_path_nor_frame_saying_what_it_takes(dl19, qrels, said):
    with pytest.raises(UsageError) as caught:
        warehouse.evaluate_files(qrels, _bm25(dl19), ["AP"])
    message = str(caught.value)
    assert message.startswith("evaluate_files takes qrels as one path (a str or os.PathLike) to a qrels file, "
                              "or a data frame (pandas, polars or Arrow); got ") and said in message


# -- 3. qrels and run swapped -----------------------------------------------------------------------
def test_evaluate_files_given_run_and_qrels_swapped_says_to_swap_them_in_python_terms(dl19):
    with pytest.raises(SwappedFileError) as caught:
        warehouse.evaluate_files(_bm25(dl19), _qrels(dl19), ["AP"])
    message = str(caught.value)
    assert message == (f"{_bm25(dl19)}: looks like a run file (6 fields: qid Q0 docid rank score tag), not qrels; "
                       f"it was given as qrels, and runs ({_qrels(dl19)}) looks like a qrels file (4 fields: qid iter "
                       "docid grade), not a run: swap them, evaluate_files(qrels, runs, measures)")
    assert "irw ingest" not in message


def test_evaluate_files_given_a_run_as_qrels_asks_whether_they_were_swapped(dl19):
    with pytest.raises(SwappedFileError) as caught:
        warehouse.evaluate_files(_bm25(dl19), _bm25(dl19), ["AP"])
    assert str(caught.value).endswith("not qrels; did you swap qrels and runs? the qrels come first: "
                                      "evaluate_files(qrels, runs, measures)")


def test_evaluate_files_given_qrels_among_its_runs_says_the_qrels_come_first(dl19):
    with pytest.raises(SwappedFileError) as caught:
        warehouse.evaluate_files(_qrels(dl19), [_bm25(dl19), _qrels(dl19)], ["AP"])
    assert str(caught.value) == (f"{_qrels(dl19)}: looks like a qrels file (4 fields: qid iter docid grade), not a "
                                 "run; runs takes run files, and the qrels come first: "
                                 "evaluate_files(qrels, runs, measures)")


@pytest.mark.parametrize("call, said", [
    (lambda wh: wh.evaluate("BM25", ["dl19"], ["AP"]), "qrels= takes one name (a str), not ['dl19'] (of type list)"),
    (lambda wh: wh.compare(["BM25", "BM25"], ["dl19"], ["AP"]), "qrels= takes one name (a str), not ['dl19']"),
    (lambda wh: wh.evaluate([["BM25"]], "dl19", ["AP"]),
     "runs= takes a name (a str) or a list of names; it holds ['BM25'] (of type list)"),
    (lambda wh: wh.evaluate(5, "dl19", ["AP"]), "runs= takes a name (a str) or a list of names, not 5 (of type int)"),
    (lambda wh: wh.select_runs(systems=[1]), "systems= takes a name (a str) or a list of names; it holds 1"),
    (lambda wh: wh.compare(["BM25", "x"], "dl19", ["AP"], baseline=["BM25"]), "baseline= takes one name (a str)"),
])
def test_a_name_argument_of_another_type_is_said_as_such_not_as_duckdb_s_error(dl19, call, said):
    """A qrels name given as a list reached DuckDB ("Type VARCHAR with value 'dl19' can't be cast to
    the destination type VARCHAR[]"), and a list of lists of runs raised "unhashable type: 'list'"
    (found by a walk of the Python API)."""
    with warehouse.open(":memory:") as wh:
        wh.ingest_qrels(_qrels(dl19), "dl19")
        wh.ingest_run(_bm25(dl19), name="BM25")
        with pytest.raises(UsageError) as refused:
            call(wh)
        assert str(refused.value).startswith(said), str(refused.value)


def test_ingest_run_given_a_list_points_to_ingest_runs(dl19):
    with warehouse.open(":memory:") as wh:
        with pytest.raises(UsageError, match=r"^ingest_run takes one run \(a path or a data frame\), not a list of "
                                             r"them: ingest_runs\(paths\) takes several$"):
            wh.ingest_run([_bm25(dl19)], name="x")
        assert wh.run_names() == []
