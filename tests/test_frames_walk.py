"""A Python user's walk with runs and qrels given as data frames, on DL19's real qrels and run.

- A run frame whose score column is text holding a non-number ("abc", as a CSV read with dtype=str
  gives it) is refused as a file line is, naming the frame's row (`run frame r row 1: score abc is
  not a number`), an InputFileError with nothing stored, in wh.ingest_run and in
  warehouse.evaluate_files; before, DuckDB's ConversionException escaped (a DatabaseError naming
  no row in evaluate_files). So are a text rank column's "x" and a qrels frame's text grade "x";
  a text score column's numbers are ranked as numbers ("10" above "9").
- The same frame ingested again under its name is the same run, said as the same file ingested
  twice is said: "already holds these bytes ... nothing to do", its date kept (with replace=True
  too). Before, it also said the run "is dated T (from data frame), not T: pass --replace to change
  its date", with T twice. Other rows under a stored name are refused naming the frame and
  replace=True (before: the temporary file's path and --replace), and replace=True stores them
  dated now, from the data frame, saying nothing more (a file of other bytes says nothing either).
  A date given stays given: the same rows again without one keep it (before: its source turned to
  'data frame').
- A qrels frame whose relevance column is float64 (as pandas makes a column that once held NaN)
  is one problem saying so and how to make it integers, then the rows that are not whole numbers;
  before, `grade 0.0 is not an integer` on each of DL19's 9,260 rows buried the one 2.5. Grades
  stay integers, as in a file.

Real data: ../shared/conformance/dl19-passage (skipped where absent).
"""
from __future__ import annotations

import datetime as dt

import pandas
import polars
import pytest

import warehouse
from warehouse import ConflictError, InputFileError


def _read_trec(path):
    return [line.split() for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def dl19(conformance):
    """DL19's qrels path and its run REP_LLAMA as PyTerrier gives it, every column text (a CSV
    read with dtype=str), the first 200 rows."""
    folder = conformance / "dl19-passage"
    rows = _read_trec(folder / "runs" / "run.dl19.REP_LLAMA.txt")[:200]
    run = pandas.DataFrame([(q, d, s, r) for q, _, d, r, s, _ in rows], columns=["qid", "docno", "score", "rank"])
    return folder / "qrels.dl19-passage.txt", run


def _runs(wh):
    return wh.sql("select name, file_created_at, date_source, source_path from runs order by name").rows


def test_a_text_score_that_is_no_number_names_its_row(dl19, tmp_path):
    qrels, run = dl19
    bad = run.copy()
    bad.loc[1, "score"] = "abc"
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        for frame in (bad, bad.drop(columns="rank"), polars.from_pandas(bad)):
            with pytest.raises(InputFileError) as caught:
                wh.ingest_run(frame, name="r")
            assert str(caught.value).splitlines() == ["run frame r row 1: score abc is not a number"]
        rank = run.copy()
        rank.loc[3, "rank"] = "x"
        with pytest.raises(InputFileError, match=r"^run frame r row 3: rank x is not an integer$"):
            wh.ingest_run(rank, name="r")
        grades = pandas.DataFrame({"query_id": ["19335", "19335"], "doc_id": ["1017759", "1082489"],
                                   "relevance": ["1", "x"]})
        with pytest.raises(InputFileError, match=r"^qrels frame g row 1: grade x is not an integer$"):
            wh.ingest_qrels(grades, "g")
        assert _runs(wh) == [] and wh.qrels_sets().rows == []
        # text that is numbers is read as numbers, ranked by them without a rank column
        assert wh.ingest_run(run, name="text").status == "ingested"
        numbers = pandas.DataFrame({"qid": ["1"] * 3, "docno": ["a", "b", "c"], "score": ["9", "10", "1e3"]})
        wh.ingest_run(numbers, name="numbers")
        assert wh.sql("select doc_id, score, rank_given from run_rows join runs using (run_id) "
                      "where name = 'numbers' order by rank_given").rows == [("c", 1000.0, 1), ("b", 10.0, 2), ("a", 9.0, 3)]
        wh.ingest_qrels(qrels, "dl19")
        floats = warehouse.evaluate_files(qrels, {"text": run.assign(score=run["score"].astype(float))}, ["AP", "RR"])
        assert wh.evaluate(["text"], "dl19", ["AP", "RR"]).wide().rows == floats.wide().rows
    with pytest.raises(InputFileError) as caught:
        warehouse.evaluate_files(qrels, bad, ["AP"])
    assert str(caught.value).splitlines() == ["run frame run 1 row 1: score abc is not a number"]


def test_a_text_among_numbers_past_duckdb_s_sample_names_its_row(conformance, tmp_path):
    """DL19's REP_LLAMA run as a frame whose score column holds Python floats and, at row 2,500, a
    text: DuckDB typed the column from its first 1,000 values as DOUBLE and failed at that row with
    its own "Could not convert string 'high' to DOUBLE", a traceback, not irw's error."""
    rows = _read_trec(conformance / "dl19-passage" / "runs" / "run.dl19.REP_LLAMA.txt")[:3000]
    scores = pandas.Series([float(s) for _, _, _, _, s, _ in rows], dtype=object)
    scores[2500] = "high"
    frame = pandas.DataFrame({"qid": [q for q, *_ in rows], "docno": [d for _, _, d, *_ in rows], "score": scores})
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        with pytest.raises(InputFileError) as caught:
            wh.ingest_run(frame, name="r")
        assert str(caught.value).splitlines() == ["run frame r row 2500: score high is not a number"]
        assert _runs(wh) == []


def test_the_same_frame_again_is_the_same_run(dl19, tmp_path):
    _, run = dl19
    other = run.copy()
    other.loc[0, "score"] = "99.5"
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        first = wh.ingest_run(run, name="r")
        assert (first.status, first.messages) == ("ingested", [])
        stored = _runs(wh)
        assert [row[2:] for row in stored] == [("data frame", None)]
        assert abs(stored[0][1] - dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)) < dt.timedelta(minutes=5)
        for replace in (False, True):
            again = wh.ingest_run(run, name="r", replace=replace)
            assert again.status == "unchanged", replace
            assert len(again.messages) == 1 and again.messages[0].startswith("run r already holds these bytes (sha256 ")
            assert again.messages[0].endswith(" of run frame r; nothing to do")
            assert _runs(wh) == stored
        with pytest.raises(ConflictError) as caught:
            wh.ingest_run(other, name="r")
        assert str(caught.value) == ("run frame r: run r already exists with different content; pass `replace=True` "
                                     "to replace it and every score computed from it, or give another name with name=")
        replaced = wh.ingest_run(other, name="r", replace=True)
        assert (replaced.status, replaced.messages) == ("replaced", [])
        assert [row[2:] for row in _runs(wh)] == [("data frame", None)]

        # a date given stays given: the same rows without one keep it
        dated = wh.ingest_run(other, name="r", date="2019-04-01")
        assert dated.status == "unchanged" and dated.messages[1].endswith(
            "(from data frame), not 2019-04-01 00:00:00: pass replace=True to change its date")
        assert [row[2] for row in _runs(wh)] == ["data frame"]  # nothing changed: not even its source
        redated = wh.ingest_run(other, name="r", date="2019-04-01", replace=True)
        assert redated.status == "redated"
        assert _runs(wh) == [("r", dt.datetime(2019, 4, 1), "--date", None)]
        for replace in (False, True):
            assert wh.ingest_run(other, name="r", replace=replace).status == "unchanged"
            assert _runs(wh) == [("r", dt.datetime(2019, 4, 1), "--date", None)]
        # other rows without a date: dated now, from the data frame, said in Python's words
        back = wh.ingest_run(run, name="r", replace=True)
        assert back.status == "replaced" and len(back.messages) == 1
        assert " (from data frame), was 2019-04-01 00:00:00 (from --date) (date= gives another)" in back.messages[0]
        assert [row[2:] for row in _runs(wh)] == [("data frame", None)]
