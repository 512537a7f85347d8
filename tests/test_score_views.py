"""The score views documented for ad-hoc SQL agree with Warehouse.evaluate."""
from __future__ import annotations

import pytest

import warehouse
from warehouse.sample import write_sample


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    directory = tmp_path_factory.mktemp("views")
    qrels, runs = write_sample(directory / "data", queries=12)
    wh = warehouse.open(directory / "w.duckdb")
    wh.ingest_qrels(qrels, "sample")
    for path in runs[:3]:
        wh.ingest_run(path)
    evaluation = wh.evaluate([r[0] for r in wh.runs().rows], "sample", ["AP", "GMAP", "NumRelRet", "P@10"],
                             per_query=True)
    yield wh, evaluation
    wh.close()


def test_run_summary_view_equals_the_evaluation_summary(evaluated):
    wh, evaluation = evaluated
    view = {(run, measure): (value, micro, queries)
            for run, measure, value, micro, queries in wh.sql(
                "select run, measure, value, micro, queries from run_summary where qrels = ?", ["sample"]).rows}
    assert len(view) == len(evaluation.summary.rows) == 12
    for run, measure, value, micro, queries in evaluation.summary.rows:
        got_value, got_micro, got_queries = view[(run, measure)]
        assert got_value == pytest.approx(value, abs=1e-12)
        assert got_queries == queries
        assert (got_micro is None) == (micro is None)


def test_score_values_view_names_run_qrels_and_settings(evaluated):
    wh, evaluation = evaluated
    rows = wh.sql("select run, qrels, query, measure, value, settings from score_values "
                  "where measure = 'AP' order by run, query").rows
    expected = sorted((run, q, v) for run, q, m, v in evaluation.per_query.rows if m == "AP")
    assert [(r[0], r[2], r[4]) for r in rows] == expected
    assert {r[1] for r in rows} == {"sample"}
    assert {r[5] for r in rows} == {evaluation.settings.key}
