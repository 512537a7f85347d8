"""One stored score asked for by two names in one evaluation (AP and AP(rel=2) at level 2): computed
once, as trec_eval computes map once. It was computed with the measure listed twice, each query's
value doubled (P@10 above 1) and stored twice; migration 20 deletes such scores, to be computed
again."""
from __future__ import annotations

import pytest

import warehouse

from conftest import dl19_expected

PAIRS = [  # names of one stored score at the evaluation's level, and trec_eval's name of it
    (["AP", "AP(rel=2)"], 2, "map"),
    (["AP(rel=1)", "AP"], 1, "map"),
    (["P(rel=1)@10", "P@10"], 1, "P_10"),
    (["Rprec", "Rprec(rel=2)"], 2, "Rprec"),
]


def _files(conformance):
    folder = conformance / "dl19-passage"
    return folder / "qrels.dl19-passage.txt", folder / "runs" / "run.dl19.BM25.txt"


@pytest.mark.parametrize("names, level, trec_name", PAIRS, ids=lambda v: str(v))
def test_evaluate_files_computes_it_once(conformance, names, level, trec_name):
    qrels, run = _files(conformance)
    expected = dl19_expected(conformance, "BM25", level=level)
    evaluation = warehouse.evaluate_files(qrels, {"bm25": run}, names, per_query=True, level=level)
    for name in names:
        assert f"{evaluation.value('bm25', name):.4f}" == expected[(trec_name, "all")]
    # shown under one name, the evaluation's (a rel= of its level is no part of it)
    rows = [row for row in evaluation.per_query.rows if row[2] == next(n for n in names if "rel=" not in n)]
    assert {row[2] for row in evaluation.per_query.rows} == {next(n for n in names if "rel=" not in n)}
    assert len(rows) == 43
    assert {query: f"{value:.4f}" for _, query, _, value in rows} == \
        {query: value for (name, query), value in expected.items() if name == trec_name and query != "all"}


def test_a_warehouse_stores_it_once_and_reads_trec_eval_s_numbers(conformance, tmp_path):
    qrels, run = _files(conformance)
    expected = dl19_expected(conformance, "BM25", level=2)
    with warehouse.open(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(qrels, "dl19")
        wh.ingest_run(run, name="bm25")
        both = wh.evaluate(["bm25"], "dl19", ["AP", "AP(rel=2)", "P@10", "P(rel=2)@10"], level=2)
        assert [f"{both.value('bm25', m):.4f}" for m in ("AP", "AP(rel=2)", "P@10", "P(rel=2)@10")] == \
            [expected[("map", "all")]] * 2 + [expected[("P_10", "all")]] * 2
        assert wh.sql("select measure, count(*), count(distinct query) from score_values "
                      "group by measure order by measure").rows == [("AP", 43, 43), ("P@10", 43, 43)]
        alone = wh.evaluate(["bm25"], "dl19", ["AP"], level=2)  # read back, not computed again
        assert f"{alone.value('bm25', 'AP'):.4f}" == expected[("map", "all")]


def test_migration_20_deletes_scores_stored_twice_and_they_are_computed_again(conformance, tmp_path):
    qrels, run = _files(conformance)
    expected = dl19_expected(conformance, "BM25", level=2)
    path = tmp_path / "w.duckdb"
    with warehouse.open(path) as wh:
        wh.ingest_qrels(qrels, "dl19")
        wh.ingest_run(run, name="bm25")
        wh.evaluate(["bm25"], "dl19", ["AP", "P@10"], level=2)
        # as the evaluator before migration 20 left them: AP's values doubled and stored twice
        wh.db.execute("update scores set value = 2 * value where measure = 'AP'")
        wh.db.execute("insert into scores select * from scores where measure = 'AP'")
        wh.db.execute("delete from irw_schema where version >= 20")
        doubled = wh.sql("select count(*) from score_values where measure = 'AP'").rows
        assert doubled == [(86,)]
    with warehouse.open(path) as wh:
        assert wh.db.schema_version() >= 20
        assert wh.sql("select measure, count(*) from score_values group by measure").rows == [("P@10", 43)]
        again = wh.evaluate(["bm25"], "dl19", ["AP", "P@10"], level=2)
        assert [f"{again.value('bm25', m):.4f}" for m in ("AP", "P@10")] == \
            [expected[("map", "all")], expected[("P_10", "all")]]
