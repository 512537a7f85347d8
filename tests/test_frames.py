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
    assert str(caught.value) == (f"{module} is not installed; install it with pip install 'irwarehouse[{extra}]' "
                                 f"(or pip install {module})")
