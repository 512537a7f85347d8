"""Results into pandas, polars and Arrow (and Jupyter's HTML) without copying by hand, on DL19;
a clear message naming the extra when the library is absent."""
from __future__ import annotations

import sys

import pandas
import polars
import pyarrow
import pytest

import warehouse
from warehouse import MissingExtraError
from warehouse.errors import install_command

from conftest import Cli

RUNS = ("BM25", "REP_LLAMA")


@pytest.fixture
def dl19_wh(tmp_path, conformance):
    folder = conformance / "dl19-passage"
    irw = Cli(tmp_path / "irw.duckdb")
    irw("ingest", "qrels", folder / "qrels.dl19-passage.txt", "--name", "dl19")
    for run in RUNS:
        irw("ingest", "run", folder / "runs" / f"run.dl19.{run}.txt", "--name", run)
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        yield wh


def test_every_value_survives_the_trip_into_each_library(dl19_wh):
    ev = dl19_wh.evaluate(list(RUNS), "dl19", ["AP(rel=2)", "nDCG@10", "NumRet"], per_query=True)
    wide = ev.wide()
    frames = {"pandas": ev.to_pandas().to_dict("records"), "polars": ev.to_polars().to_dicts(),
              "arrow": ev.to_arrow().to_pylist()}
    for library, records in frames.items():
        assert records == wide.to_dicts(), library  # exact floats, ints stay ints
    assert isinstance(ev.to_pandas()["NumRet"].iloc[0].item(), int)
    scores = dl19_wh.sql("select run, query, measure, value, level from score_values order by all")
    assert len(scores) == 2 * 43 * 3
    assert scores.to_pandas().to_dict("records") == scores.to_dicts()
    assert scores.to_polars().rows() == scores.rows
    assert scores.to_arrow().to_pylist() == scores.to_dicts()
    runs = dl19_wh.runs()
    assert list(runs.to_pandas()["name"]) == list(RUNS) and runs.to_arrow().num_rows == 2


def test_jupyter_html_escapes_and_formats(dl19_wh):
    table = warehouse.Table(["run", "value"], [("<b>&", 0.123456), ("x", None)])
    assert table._repr_html_() == ("<table><thead><tr><th>run</th><th>value</th></tr></thead><tbody>"
                                   "<tr><td>&lt;b&gt;&amp;</td><td>0.1235</td></tr><tr><td>x</td><td></td></tr>"
                                   "</tbody></table>")
    ev = dl19_wh.evaluate(list(RUNS), "dl19", ["nDCG@10"])
    assert "<td>REP_LLAMA</td><td>43</td><td>0.7384</td>" in ev._repr_html_()


@pytest.mark.parametrize("module, extra, method", [("pandas", "pandas", "to_pandas"),
                                                   ("polars", "polars", "to_polars"),
                                                   ("pyarrow", "arrow", "to_arrow")])
def test_a_missing_library_names_the_extra(monkeypatch, module, extra, method):
    monkeypatch.setitem(sys.modules, module, None)  # as if it were not installed: import fails
    with pytest.raises(MissingExtraError) as caught:
        getattr(warehouse.Table(["a"], [(1,)]), method)()
    assert str(caught.value) == f"{module} is not installed; install it with {install_command(extra)}"
    assert install_command(extra).endswith(f"[{extra}]'")  # tests/test_install.py checks the command


# -- runs and qrels from frames ----------------------------------------------------------------
def _read_trec(path) -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def dl19_frames(conformance):
    """DL19's qrels as ir_datasets gives them and a run as PyTerrier gives it, built from the files."""
    folder = conformance / "dl19-passage"
    qrels = pandas.DataFrame([(q, d, int(g), it) for q, it, d, g in _read_trec(folder / "qrels.dl19-passage.txt")],
                             columns=["query_id", "doc_id", "relevance", "iteration"])
    run_path = folder / "runs" / "run.dl19.REP_LLAMA.txt"
    run = pandas.DataFrame([(q, d, float(s), int(r)) for q, _, d, r, s, _ in _read_trec(run_path)],
                           columns=["qid", "docno", "score", "rank"])
    return folder, qrels, run, run_path


MEASURES = ["AP", "nDCG@10", "P(rel=2)@10", "R@1000", "RR", "NumRelRet"]


def test_pyterrier_and_ir_datasets_frames_give_the_numbers_of_the_files(dl19_frames, tmp_path):
    folder, qrels, run, run_path = dl19_frames
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        wh.ingest_qrels(folder / "qrels.dl19-passage.txt", "files")
        wh.ingest_run(run_path, name="from-file")
        wh.ingest_qrels(qrels, "frames")
        for name, frame in {"pandas": run, "polars": polars.from_pandas(run),
                            "arrow": pyarrow.Table.from_pandas(run, preserve_index=False)}.items():
            result = wh.ingest_run(frame, name=name)
            assert (result.status, result.rows, result.queries, result.path) == ("ingested", 43000, 43, f"run frame {name}")
        by_file = wh.evaluate(["from-file"], "files", MEASURES, per_query=True).per_query.rows
        for name in ("pandas", "polars", "arrow"):
            by_frame = wh.evaluate([name], "frames", MEASURES, per_query=True).per_query.rows
            assert [row[1:] for row in by_frame] == [row[1:] for row in by_file], name
        runs = {row["name"]: row for row in wh.runs().to_dicts()}
        assert runs["pandas"]["date_source"] == "data frame" and runs["from-file"]["date_source"] == "file mtime"
        again = wh.ingest_run(run, name="pandas")  # the same frame again changes nothing
        assert again.status == "unchanged" and "/tmp" not in " ".join(again.messages)


def test_a_run_round_trips_frame_warehouse_frame(dl19_frames, tmp_path):
    _, _, run, _ = dl19_frames
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        wh.ingest_run(run, name="rt")
        back = wh.sql("select query_id as qid, doc_id as docno, score, rank_given as rank from run_rows "
                      "where run_id = (select run_id from runs where name = 'rt')").to_pandas()
    key = ["qid", "docno"]
    merged = run.merge(back, on=key, suffixes=("", "_back"), validate="one_to_one")
    assert len(merged) == len(run) == 43000
    assert (merged["score"] == merged["score_back"]).all()  # every double exactly
    assert (merged["rank"] == merged["rank_back"]).all()


def test_evaluate_files_takes_frames(dl19_frames):
    folder, qrels, run, run_path = dl19_frames
    by_files = warehouse.evaluate_files(folder / "qrels.dl19-passage.txt", [run_path], MEASURES).wide().rows
    by_frames = warehouse.evaluate_files(qrels, {"REP_LLAMA": run}, MEASURES).wide().rows
    assert [row[1:] for row in by_frames] == [row[1:] for row in by_files]
    assert by_frames[0][0] == "REP_LLAMA"
    assert warehouse.evaluate_files(qrels, [run, run.head(100)], ["AP"]).wide().column("run") == ["run 1", "run 2"]


def test_frame_rows_break_the_same_rules_as_file_lines(tmp_path):
    run = pandas.DataFrame({"qid": ["1", "1", "2", "2"], "docno": ["a", "b", "a", "c d"],
                            "score": [2.0, float("nan"), 0.5, 0.7]})
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        before = wh.sql("select count(*) from runs").rows
        with pytest.raises(warehouse.InputFileError) as caught:
            wh.ingest_run(run, name="bad")
        assert str(caught.value).splitlines() == [
            "run frame bad row 1: its score is missing (None or NaN)",
            "run frame bad row 3: its docno 'c d' holds whitespace, which a TREC line cannot carry"]
        duplicate = pandas.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "score": [1.0, 0.5]})
        with pytest.raises(warehouse.InputFileError, match=r"^run frame dup row 1: duplicate document a for query 1 "
                                                           r"\(first at row 0\)$"):
            wh.ingest_run(duplicate, name="dup")
        infinite = polars.DataFrame({"qid": ["1"], "docno": ["a"], "score": [float("inf")]})
        with pytest.raises(warehouse.InputFileError, match="run frame inf row 0: score inf is not"):
            wh.ingest_run(infinite, name="inf")
        grades = pandas.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1.5]})
        with pytest.raises(warehouse.InputFileError, match="qrels frame g row 0: .*1.5"):
            wh.ingest_qrels(grades, "g")
        with pytest.raises(warehouse.UsageError, match="needs a name"):
            wh.ingest_run(run)
        with pytest.raises(warehouse.UsageError, match=r"no query column: name one of query_id, qid, query \(it has x\)"):
            wh.ingest_run(pandas.DataFrame({"x": [1]}), name="x")
        assert wh.sql("select count(*) from runs").rows == before


def test_float_ids_are_refused_saying_how_to_cast_them(tmp_path):
    """A walk's pandas column of query ids went float (1.0) and the run was stored with ids no qrels
    file has, then said to be of another collection: a float id column is refused before any row."""
    qrels = pandas.DataFrame({"query_id": ["1", "2"], "doc_id": ["d1", "d2"], "relevance": [1, 1]})
    floats = pandas.DataFrame({"qid": [1.0, 2.0], "docno": ["d1", "d2"], "score": [1.0, 1.0]})
    said = ("the run frame's qid column holds floats (double), and a float is no id: its 1.0 would never match "
            "the 1 of a qrels file. Give the ids as integers or text (pandas: frame.astype({'qid': 'int64'}); "
            "pandas makes a column of integers float where it holds NaN: drop those rows first)")
    with pytest.raises(warehouse.UsageError) as raised:
        warehouse.evaluate_files(qrels, {"r": floats}, ["AP"])
    assert str(raised.value) == said
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        with pytest.raises(warehouse.UsageError, match=r"^the run frame's docno column holds floats \(float\)"):
            wh.ingest_run(polars.DataFrame({"qid": ["1"], "docno": [7.0], "score": [1.0]},
                                           schema_overrides={"docno": polars.Float32}), name="r")
        with pytest.raises(warehouse.UsageError, match=r"^the qrels frame's query_id column holds floats"):
            wh.ingest_qrels(qrels.astype({"query_id": "float64"}), "q")
        assert wh.runs().rows == [] and wh.qrels_sets().rows == []
        # as integers, the ids are the qrels' and the run is evaluated
        wh.ingest_qrels(qrels, "q")
        wh.ingest_run(floats.astype({"qid": "int64"}), name="r")
        assert wh.evaluate(["r"], "q", ["AP"]).summary.column("value") == [1.0]


def test_an_empty_frame_a_missing_score_column_and_a_nan_score_are_said_as_of_a_frame(tmp_path):
    """A walk was told "no run lines (the file is empty, ...)" of an empty frame, "name one of score",
    and of polars' NaN "score nan is not finite" where pandas' NaN is "missing (None or NaN)"."""
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        empty = pandas.DataFrame({"qid": [], "docno": [], "score": []}).astype({"qid": str, "docno": str, "score": float})
        with pytest.raises(warehouse.InputFileError) as raised:
            wh.ingest_run(empty, name="r")
        assert str(raised.value) == "run frame r: the frame has no rows"
        no_judgments = pandas.DataFrame({"query_id": [], "doc_id": [], "relevance": []}).astype(
            {"query_id": str, "doc_id": str, "relevance": int})
        with pytest.raises(warehouse.InputFileError, match=r"^qrels frame q: the frame has no rows$"):
            wh.ingest_qrels(no_judgments, "q")
        with pytest.raises(warehouse.UsageError, match=r"^the run frame has no score column: name it score \(it has "
                                                       r"qid, docno\)$"):
            wh.ingest_run(pandas.DataFrame({"qid": ["1"], "docno": ["d"]}), name="r")
        for frame in (pandas.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, float("nan")]}),
                      polars.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, float("nan")]})):
            with pytest.raises(warehouse.InputFileError) as raised:
                wh.ingest_run(frame, name="r")
            assert str(raised.value) == "run frame r row 1: its score is missing (None or NaN)", type(frame)
        assert wh.runs().rows == [] and wh.qrels_sets().rows == []


def test_a_frame_is_not_read_as_subtopic_qrels(tmp_path):
    qrels = pandas.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        with pytest.raises(warehouse.UsageError, match="subtopic qrels come from a file"):
            wh.ingest_qrels(qrels, "q", subtopics=True)
        assert wh.qrels_sets().rows == []


# In a process of its own: irw loads only DuckDB's engine module (warehouse/engines/duckdb.py), and an
# Arrow table or a polars frame could not be read until the duckdb package was loaded too, which
# any other test in the same process may have done ("Python Arrow objects cannot be scanned").
FRESH_PROCESS = """
import sys
import pandas, polars, pyarrow
import warehouse
from warehouse.engines.duckdb import MEMORY, Database

assert "duckdb" not in sys.modules  # what this test is about: irw has not loaded the package yet
build = {"pandas": pandas.DataFrame, "polars": polars.DataFrame, "arrow": pyarrow.table}
for library, make in build.items():
    run = make({"query": ["1", "1", "2"], "docid": ["a", "b", "a"], "score": [2.0, 1.0, 3.0]})
    qrels = make({"query": ["1", "1", "2"], "docid": ["a", "b", "b"], "relevance": [1, 0, 1]})
    print(library, warehouse.evaluate_files(qrels, {"r": run}, ["AP", "P@1"]).summary.rows)
db = Database(MEMORY)  # how the rows Spark computed reach a warehouse (irw eval --engine spark --into)
with db.registered("incoming", pyarrow.table({"run_id": [1, 2], "value": [0.5, 0.25]})):
    print("arrow rows", db.fetchall("select count(*), sum(value) from incoming")[0])
"""


def test_frames_and_arrow_rows_are_read_in_a_process_that_never_loaded_the_duckdb_package(tmp_path):
    import subprocess

    result = subprocess.run([sys.executable, "-c", FRESH_PROCESS], capture_output=True, text=True, timeout=300,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    expected = "[('r', 'AP', 0.5, None, 2), ('r', 'P@1', 0.5, 0.5, 2)]"
    assert result.stdout.splitlines() == [f"{library} {expected}" for library in ("pandas", "polars", "arrow")] + \
        ["arrow rows (2, 0.75)"]
