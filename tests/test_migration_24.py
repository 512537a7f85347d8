"""Migration 24: scores stored under a key that rounded its parameter are deleted, to be computed
again. Before 38a528b Rprec_mult.0.505 was stored as Rprec_mult_0.51 and IPrec@0.1234567 as
IPrec@0.123457; after the upgrade a request of Rprec_mult.0.51 read 0.505's scores (0.4981 for
trec_eval's 0.4971 on DL19 BM25), and `irw migrate` found nothing to do (a regression walk). Keys
that held their parameter exactly (Rprec_mult's defaults, IPrec@0.1, SetF(beta=0.5), P@100000)
keep their scores."""
from __future__ import annotations

import pytest

import warehouse

from conftest import dl19_trec_eval

KEPT = ["Rprec_mult.0.2", "Rprec_mult.0.5", "IPrec@0.1", "SetF(beta=0.5)", "P@100000", "AP"]
# key as this irw stores it -> the key an irw before 38a528b stored the same parameter under
ROUNDED = {"Rprec_mult_0.505": "Rprec_mult_0.51", "IPrec@0.1234567": "IPrec@0.123457",
           "SetF(beta=0.1234567)": "SetF(beta=0.123457)"}
TABLES = ("scores", "evaluated", "score_summaries")


def _as_an_older_irw_stored_them(wh) -> None:
    for new, old in ROUNDED.items():
        for table in TABLES:
            wh.db.execute(f"update {table} set measure = ? where measure = ?", [old, new])
    wh.db.execute("delete from irw_schema where version >= 24")


def _stored(wh) -> set[str]:
    return {m for (m,) in wh.sql("select distinct measure from scores").rows}


def _check(path, conformance) -> None:
    with warehouse.open(path) as wh:
        assert wh.db.schema_version() >= 24
        # Rprec_mult_0.50 is no default: 0.5, or 0.495 ... 0.504 rounded, cannot be told: computed again too
        assert _stored(wh) == {"Rprec_mult_0.20", "IPrec@0.1", "SetF(beta=0.5)", "P@100000", "AP"}
        asked = wh.evaluate(["BM25"], "dl19", ["Rprec_mult.0.51", "IPrec@0.123457", *KEPT])
        expected = dl19_trec_eval(conformance, "-m", "Rprec_mult.0.51").split("\t")[-1].strip()
        assert f"{asked.value('BM25', 'Rprec_mult_0.51'):.4f}" == expected == "0.4971"


def _stored_as_an_older_irw_left_it(target, conformance) -> None:
    """DL19's qrels and BM25 evaluated, then its rounded keys written as an irw before 38a528b
    wrote them, at schema 23."""
    folder = conformance / "dl19-passage"
    with warehouse.open(target) as wh:
        wh.ingest_qrels(folder / "qrels.dl19-passage.txt", "dl19")
        wh.ingest_run(folder / "runs" / "run.dl19.BM25.txt", name="BM25")
        wh.evaluate(["BM25"], "dl19", [*ROUNDED, *KEPT])
        _as_an_older_irw_stored_them(wh)
        assert "Rprec_mult_0.51" in _stored(wh)


def test_an_upgraded_warehouse_computes_a_rounded_key_again(conformance, tmp_path):
    path = tmp_path / "w.duckdb"
    _stored_as_an_older_irw_left_it(path, conformance)
    _check(path, conformance)


@pytest.mark.postgres
def test_an_upgraded_postgresql_warehouse_computes_a_rounded_key_again(conformance, postgres_url):
    _stored_as_an_older_irw_left_it(postgres_url, conformance)
    _check(postgres_url, conformance)
