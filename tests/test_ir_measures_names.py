"""Names users type from ir_measures: each is taken as ir_measures takes it (its aliases included:
MAP, MRR, Precision, Recall, RPrec, BPref, SetRelP), with ir_measures' numbers, computed here by
ir_measures itself on DL19 (../shared/conformance); or refused with the name to use. A parameter
a measure does not use (nDCG(rel=2)@10) is refused as ir_measures refuses it, never stored as a
label that did not apply. Each accepted name has one key, the canonical name, from parsing to the
stored score.
"""
from __future__ import annotations

import re

import pytest

import warehouse
from warehouse import MeasureError
from warehouse.evaluation.measures import at_level, parse

ir_measures = pytest.importorskip("ir_measures")

RUN = "BM25"

# typed name -> irw's canonical key (the name parse() gives, the scores' measure)
ACCEPTED = {
    "AP": "AP", "MAP": "AP", "AP@100": "AP@100", "MAP@100": "AP@100", "AP(rel=2)": "AP(rel=2)",
    "AP(judged_only=False)": "AP", "NumRet(rel=1)": "NumRelRet(rel=1)", "AP(cutoff=100)": "AP@100",
    "RR": "RR", "MRR": "RR", "RR@10": "RR@10", "MRR@10": "RR@10", "MRR(rel=2)@10": "RR(rel=2)@10",
    "P@10": "P@10", "Precision@10": "P@10", "P(rel=2)@10": "P(rel=2)@10", "P(cutoff=10)": "P@10",
    "R@100": "R@100", "Recall@100": "R@100", "R(rel=2)@1000": "R(rel=2)@1000",
    "nDCG": "nDCG", "NDCG": "nDCG", "nDCG@10": "nDCG@10", "NDCG@10": "nDCG@10",
    "Rprec": "Rprec", "RPrec": "Rprec", "Rprec(rel=2)": "Rprec(rel=2)", "Bpref": "Bpref", "BPref": "Bpref",
    "infAP": "infAP", "SetP": "SetP", "SetRelP": "set_relative_P", "SetP(relative=True)": "set_relative_P",
    "SetR": "SetR", "SetF": "SetF(beta=1)", "SetF(beta=0.5)": "SetF(beta=0.5)", "SetF(beta=2.0)": "SetF(beta=2)",
    "SetAP": "SetAP",
    "IPrec@0.5": "IPrec@0.5", "IPrec(recall=0.5)": "IPrec@0.5", "Success@10": "Success@10",
    "Judged@10": "Judged@10", "Judged(cutoff=10)": "Judged@10", "NumQ": "NumQ", "NumRet": "NumRet",
    "NumRel": "NumRel", "NumRelRet": "NumRelRet", "NumRet(rel=2)": "NumRelRet(rel=2)",
}

# typed name -> what irw's refusal says (the name to use, or why)
REFUSED = {
    "nDCG(rel=2)@10": "write nDCG@10",  # ir_measures: nDCG takes no rel
    "nDCG(rel=2)": "write nDCG",
    "Judged(rel=2)@10": "write Judged@10",
    "NumQ(rel=2)": "write NumQ",
    "Bpref(judged_only=False)": "Bpref takes no judged_only=",
    "P(judged_only=True)@10": "write P@10 with --judged-only",
    "nDCG(judged_only=True)@10": "write nDCG@10 with --judged-only",
    "nDCG(gains={0:0,1:1})@10": "ndcg.0=0,1=1 (over the whole ranking; trec_eval cuts no nDCG with a gain map",
    "RBP": "trec_eval 10.0's rbp",
    "Compat": "irw does not compute",
    "MAP_IA": "irw does not compute",
    "alpha_DCG@20": "irw computes alpha_nDCG@k",
    "P10": "did you mean P@10?",
}
# refused by ir_measures too (the others it takes: irw says which setting gives their number)
IR_MEASURES_REFUSES = {"nDCG(rel=2)@10", "nDCG(rel=2)", "Judged(rel=2)@10", "NumQ(rel=2)", "Bpref(judged_only=False)",
                       "P10"}


@pytest.fixture(scope="module")
def dl19(conformance):
    folder = conformance / "dl19-passage"
    qrels, run = folder / "qrels.dl19-passage.txt", folder / "runs" / f"run.dl19.{RUN}.txt"
    return qrels, run, list(ir_measures.read_trec_qrels(str(qrels))), list(ir_measures.read_trec_run(str(run)))


def _ir_measures(dl19, name: str) -> tuple[dict[str, float], float]:
    _, _, qrels, run = dl19
    measure = ir_measures.parse_measure(name)
    per_query = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
    return per_query, ir_measures.calc_aggregate([measure], qrels, run)[measure]


@pytest.mark.parametrize("name,key", ACCEPTED.items(), ids=list(ACCEPTED))
def test_an_ir_measures_name_gives_ir_measures_number(name, key, dl19):
    qrels, run, _, _ = dl19
    assert [m.name for m in parse(name)] == [key]
    evaluation = warehouse.evaluate_files(qrels, {RUN: run}, [name], per_query=True)
    # one key, stored and shown: at the evaluation's level 1, NumRelRet(rel=1) is NumRelRet (at_level)
    assert {row[1] for row in evaluation.summary.rows} == {m.name for m in at_level(parse(name), 1)}
    expected_per_query, expected = _ir_measures(dl19, name)
    assert evaluation.summary.rows[0][2] == pytest.approx(expected, abs=1e-9)
    ours = {query: value for _, query, _, value in evaluation.per_query.rows}
    if ours:  # NumQ has no per-query value
        assert ours == pytest.approx(expected_per_query, abs=1e-9)


@pytest.mark.parametrize("name,says", REFUSED.items(), ids=list(REFUSED))
def test_a_name_irw_refuses_names_what_to_use(name, says, dl19):
    qrels, run, _, _ = dl19
    with pytest.raises(MeasureError) as refused:
        warehouse.evaluate_files(qrels, {RUN: run}, [name])
    assert says in str(refused.value)
    if name in IR_MEASURES_REFUSES:
        with pytest.raises(Exception):
            ir_measures.calc_aggregate([ir_measures.parse_measure(name)], dl19[2], dl19[3])


def test_the_gain_map_a_refused_gains_is_told_to_give_is_ir_measures_number(dl19):
    """An ir_measures user's nDCG(gains={0:0,1:1,2:3,3:7}) was told only "trec_eval's ndcg.1=3,2=9":
    the refusal spells the map typed as trec_eval's parameter, which gives ir_measures' number."""
    qrels, run, _, _ = dl19
    typed = "nDCG(gains={0:0,1:1,2:3,3:7})"
    with pytest.raises(MeasureError) as refused:
        warehouse.evaluate_files(qrels, {RUN: run}, [typed])
    spelled = re.search(r"ndcg\.\S+", str(refused.value)).group(0)
    assert spelled == "ndcg.0=0,1=1,2=3,3=7"
    per_query, mean = _ir_measures(dl19, typed)
    evaluation = warehouse.evaluate_files(qrels, {RUN: run}, [spelled], per_query=True)
    assert evaluation.summary.rows[0][2] == pytest.approx(mean, abs=1e-9)


@pytest.mark.parametrize("name,plain", [("P(judged_only=True)@10", "P@10"), ("nDCG(judged_only=True)@10", "nDCG@10"),
                                        ("AP(judged_only=True)", "AP")])
def test_the_judged_only_setting_irw_names_gives_ir_measures_judged_only_number(name, plain, dl19):
    qrels, run, _, _ = dl19
    evaluation = warehouse.evaluate_files(qrels, {RUN: run}, [plain], judged_only=True)
    assert evaluation.summary.rows[0][2] == pytest.approx(_ir_measures(dl19, name)[1], abs=1e-9)


def _old_setf_warehouse(target, tmp_path):
    """A warehouse as irw before schema 16 left it: SetF(beta=b) stored set_F.(b*b)'s values. Made
    by storing today's SetF(beta=0.25) and SetF(beta=0.7) under the names the old reading gave them
    (0.5, and 0.83666, whose square has more decimals than a name spells), and forgetting 16."""
    from conftest import RUN_ROWS, run_text, write_file

    with warehouse.open(target) as wh:
        wh.ingest_qrels(write_file(tmp_path, "q.qrels", "q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d1 1\nq2 0 d9 2\n"), "q")
        wh.ingest_run(write_file(tmp_path, "a.run", run_text(RUN_ROWS, tag="a")))
        stored = wh.evaluate("a", "q", ["SetF(beta=0.25)", "SetF(beta=0.7)", "SetF"], per_query=True)
        for new, old in (("SetF(beta=0.25)", "SetF(beta=0.5)"), ("SetF(beta=0.7)", "SetF(beta=0.83666)")):
            for table in ("scores", "evaluated", "measures"):
                wh.db.execute(f"update {table} set measure = '{old}' where measure = '{new}'")
        wh.db.execute("delete from irw_schema where version = 12")
    return {(q, m): v for _, q, m, v in stored.per_query.rows}


def _check_renamed(target, before):
    with warehouse.open(target) as wh:
        keys = {r[0] for r in wh.sql("select distinct measure from scores").rows}
        assert keys == {"SetF(beta=0.25)", "SetF(beta=1)"}  # 0.5 renamed; 0.83666's scores dropped
        assert {r[0] for r in wh.sql("select measure from measures where measure like 'SetF%'").rows} == keys
        kept = wh.evaluate("a", "q", ["SetF(beta=0.25)", "SetF"], per_query=True)
        assert {(q, m): v for _, q, m, v in kept.per_query.rows} == {
            k: v for k, v in before.items() if k[1] != "SetF(beta=0.7)"}
        fresh = wh.evaluate("a", "q", ["SetF(beta=0.5)"], per_query=True)  # computed now, set_F.0.5
        assert {q: v for _, q, _, v in fresh.per_query.rows} != {q: v for (q, m), v in before.items()
                                                                   if m == "SetF(beta=0.25)"}


def test_an_old_warehouse_keeps_its_setf_values_under_their_new_names(tmp_path):
    target = tmp_path / "irw.duckdb"
    _check_renamed(target, _old_setf_warehouse(target, tmp_path))


@pytest.mark.postgres
def test_an_old_postgresql_warehouse_keeps_its_setf_values_under_their_new_names(postgres_url, tmp_path):
    _check_renamed(postgres_url, _old_setf_warehouse(postgres_url, tmp_path))
