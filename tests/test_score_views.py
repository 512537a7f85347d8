"""The score views documented for ad-hoc SQL agree with Warehouse.evaluate."""
from __future__ import annotations

import math

import pytest

import warehouse
from warehouse.commands.sample import write_sample


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


def expected_summary(wh, evaluation) -> dict[tuple[str, str], tuple[float, float | None, int]]:
    """trec_eval's summary rule computed here from the stored per-query scores, independently of the
    trec_summary macro behind both the view and Warehouse.evaluate: an fsum mean (AP, P@10), a sum
    (NumRelRet), a geometric mean with values floored at 1e-5 (GMAP); micro pools P@10's counts."""
    values: dict[tuple[str, str], list[float]] = {}
    for run, _query, measure, value in evaluation.per_query.rows:
        values.setdefault((run, measure), []).append(value)
    counts: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for run, measure, numerator, denominator in wh.sql(
            "select run, measure, numerator, denominator from score_values where qrels = ? and numerator is not null",
            ["sample"]).rows:
        counts.setdefault((run, measure), []).append((numerator, denominator))
    expected = {}
    for (run, measure), vs in values.items():
        if measure == "NumRelRet":
            value = math.fsum(vs)
        elif measure == "GMAP":
            value = math.exp(math.fsum(math.log(max(v, 1e-5)) for v in vs) / len(vs))
        else:
            value = math.fsum(vs) / len(vs)
        pooled = counts.get((run, measure))
        micro = math.fsum(n for n, _ in pooled) / math.fsum(d for _, d in pooled) if pooled else None
        expected[(run, measure)] = (value, micro, len(vs))
    return expected


def test_run_summary_view_and_the_evaluation_summary_follow_trec_evals_rule(evaluated):
    wh, evaluation = evaluated
    expected = expected_summary(wh, evaluation)
    assert len(expected) == 12 and {m for _, m in expected} == {"AP", "GMAP", "NumRelRet", "P@10"}
    assert all(queries == 12 for _, _, queries in expected.values())
    assert [micro is not None for (_, m), (_, micro, _) in sorted(expected.items())] == \
        [m == "P@10" for _, m in sorted(expected)]
    view = {(run, measure): (value, micro, queries)
            for run, measure, value, micro, queries in wh.sql(
                "select run, measure, value, micro, queries from run_summary where qrels = ?", ["sample"]).rows}
    summary = {(run, measure): (value, micro, queries)
               for run, measure, value, micro, queries in evaluation.summary.rows}
    for got in (view, summary):
        assert set(got) == set(expected)
        for key, (value, micro, queries) in expected.items():
            got_value, got_micro, got_queries = got[key]
            assert got_value == pytest.approx(value, rel=1e-12, abs=1e-12), key
            assert got_queries == queries
            assert (got_micro is None) == (micro is None), key
            if micro is not None:
                assert got_micro == pytest.approx(micro, rel=1e-12, abs=1e-12), key


def test_score_values_view_names_run_qrels_and_settings(evaluated):
    wh, evaluation = evaluated
    rows = wh.sql("select run, qrels, query, measure, value, settings from score_values "
                  "where measure = 'AP' order by run, query").rows
    expected = sorted((run, q, v) for run, q, m, v in evaluation.per_query.rows if m == "AP")
    assert [(r[0], r[2], r[4]) for r in rows] == expected
    assert {r[1] for r in rows} == {"sample"}
    assert {r[5] for r in rows} == {evaluation.settings.key}
