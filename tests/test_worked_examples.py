"""Every number in ../shared/WORKED_EXAMPLES.md (from the seed texts), as an exact test."""
from __future__ import annotations

from fractions import Fraction

import pytest

import warehouse
from warehouse.errors import InputFileError


def approx(value):
    return pytest.approx(float(value), abs=1e-9)


def write_qrels(path, judgments):
    """judgments: {query: {doc: grade}}"""
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in judgments.items() for d, g in docs.items()))
    return path


def write_run(path, rankings, tag="sys"):
    """rankings: {query: [doc, ...]} in rank order; scores fall with rank so the order is unambiguous."""
    lines = []
    for q, docs in rankings.items():
        lines += [f"{q} Q0 {d} {i} {1000 - i} {tag}\n" for i, d in enumerate(docs, start=1)]
    path.write_text("".join(lines))
    return path


@pytest.fixture
def wh(tmp_path):
    with warehouse.open(tmp_path / "w.duckdb") as w:
        yield w


def evaluate(wh, tmp_path, judgments, rankings, measures, **settings):
    wh.ingest_qrels(write_qrels(tmp_path / "qrels.txt", judgments), "q", replace=True)
    wh.ingest_run(write_run(tmp_path / "run.txt", rankings), "r", replace=True)
    return wh.evaluate("r", "q", measures, per_query=True, **settings)


def per_query(evaluation, query, measure):
    for _run, q, m, value in evaluation.per_query.rows:
        if q == query and m == measure:
            return value
    raise KeyError((query, measure))


# -- seed 000: set precision, recall, F-beta; micro vs macro ----------------------------------
def seed000_query(name, retrieved_rel, retrieved_nonrel, missed):
    rel = [f"{name}r{i}" for i in range(retrieved_rel + missed)]
    judgments = {d: 1 for d in rel}
    ranking = rel[:retrieved_rel] + [f"{name}n{i}" for i in range(retrieved_nonrel)]
    return judgments, ranking


def test_seed000_set_precision_recall_f(wh, tmp_path):
    judgments, ranking = seed000_query("a", 16, 24, 4)
    ev = evaluate(wh, tmp_path, {"A": judgments}, {"A": ranking},
                  ["SetP", "SetR", "SetF", "SetF(beta=0.5)", "SetF(beta=2)"])
    assert ev.value("r", "SetP") == approx(0.4)
    assert ev.value("r", "SetR") == approx(0.8)
    assert ev.value("r", "SetF(beta=1)") == approx(Fraction(32, 60))
    # SetF(beta=x) as ir_measures reads it: trec_eval's set_F.x, (1 + x) P R / (x P + R)
    assert ev.value("r", "SetF(beta=0.5)") == approx(Fraction(12, 25))  # 1.5 * 0.32 / (0.2 + 0.8)
    assert ev.value("r", "SetF(beta=2)") == approx(Fraction(3, 5))  # 3 * 0.32 / (0.8 + 0.8)


def test_seed000_trec_eval_set_F_parameter_is_beta_squared(wh, tmp_path):
    """set_F.4 is the textbook F_2 (x is beta squared), under the name ir_measures gives it."""
    judgments, ranking = seed000_query("a", 16, 24, 4)
    ev = evaluate(wh, tmp_path, {"A": judgments}, {"A": ranking}, ["set_F.4"])
    assert [m.name for m in ev.measures] == ["SetF(beta=4)"]
    assert ev.value("r", "SetF(beta=4)") == approx(Fraction(80, 120))  # 5 * 0.32 / (1.6 + 0.8)


def test_seed000_retrieve_everything(wh, tmp_path):
    judgments, ranking = seed000_query("a", 20, 9980, 0)
    ev = evaluate(wh, tmp_path, {"A": judgments}, {"A": ranking}, ["SetP", "SetR", "SetF"])
    assert ev.value("r", "SetP") == approx(0.002)
    assert ev.value("r", "SetR") == approx(1)
    assert ev.value("r", "SetF(beta=1)") == pytest.approx(0.003992, abs=5e-7)


def test_seed000_micro_and_macro(wh, tmp_path):
    ja, ra = seed000_query("a", 16, 24, 4)
    jb, rb = seed000_query("b", 1, 9, 1)
    ev = evaluate(wh, tmp_path, {"A": ja, "B": jb}, {"A": ra, "B": rb}, ["SetP", "SetR", "SetF"])
    assert per_query(ev, "B", "SetP") == approx(0.1)
    assert per_query(ev, "B", "SetR") == approx(0.5)
    assert per_query(ev, "B", "SetF(beta=1)") == approx(Fraction(1, 6))
    summary = {m: (v, micro) for _run, m, v, micro, _n in ev.summary.rows}
    assert summary["SetP"] == (approx(0.25), approx(Fraction(17, 50)))
    assert summary["SetR"] == (approx(0.65), approx(Fraction(17, 22)))
    assert summary["SetF(beta=1)"][0] == approx((Fraction(32, 60) + Fraction(1, 6)) / 2)  # 0.350
    assert summary["SetF(beta=1)"][1] == approx(Fraction(34, 72))  # 0.4722: F of the pooled counts
    # F1 of the macro means is neither: 2(0.25)(0.65)/0.9 = 0.3611
    f_of_means = 2 * 0.25 * 0.65 / 0.9
    assert abs(f_of_means - summary["SetF(beta=1)"][0]) > 0.01
    assert abs(f_of_means - summary["SetF(beta=1)"][1]) > 0.1


# -- seed 002: a complete example -------------------------------------------------------------
SEED002_QRELS = {"D1": 1, "D3": 1, "D4": 1}
SEED002_A = ["D1", "D2"]
SEED002_B = ["D1", "D2", "D3", "D4", "D5", "D6", "D7"]


def test_seed002_systems_a_and_b(wh, tmp_path):
    ev = evaluate(wh, tmp_path, {"A": SEED002_QRELS, "B": SEED002_QRELS}, {"A": SEED002_A, "B": SEED002_B},
                  ["SetP", "SetR", "SetF", "AP", "Rprec"])
    assert per_query(ev, "A", "SetP") == approx(Fraction(1, 2))
    assert per_query(ev, "A", "SetR") == approx(Fraction(1, 3))
    assert per_query(ev, "A", "SetF(beta=1)") == approx(Fraction(2, 5))
    assert per_query(ev, "B", "SetP") == approx(Fraction(3, 7))
    assert per_query(ev, "B", "SetR") == approx(1)
    assert per_query(ev, "B", "SetF(beta=1)") == approx(Fraction(3, 5))
    assert per_query(ev, "A", "AP") == approx(Fraction(1, 3))
    assert per_query(ev, "B", "AP") == approx(Fraction(29, 36))
    assert ev.value("r", "AP") == approx(Fraction(41, 72))
    assert per_query(ev, "B", "Rprec") == approx(Fraction(2, 3))


def test_seed002_eleven_point_interpolated_precision(wh, tmp_path):
    levels = [f"IPrec@{x / 10:g}" for x in range(11)]
    ev = evaluate(wh, tmp_path, {"A": SEED002_QRELS, "B": SEED002_QRELS}, {"A": SEED002_A, "B": SEED002_B},
                  levels + ["11pt_avg"])
    expected_a = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    expected_b = [1, 1, 1, 1] + [0.75] * 7
    assert [per_query(ev, "A", m) for m in levels] == [approx(v) for v in expected_a]
    assert [per_query(ev, "B", m) for m in levels] == [approx(v) for v in expected_b]
    assert [ev.value("r", m) for m in levels] == [approx(v) for v in [1] * 4 + [0.375] * 7]
    assert per_query(ev, "A", "11pt_avg") == approx(Fraction(4, 11))


# -- seed 003: one ranking, four questions ----------------------------------------------------
SEED003_Q1 = {"A": 3, "B": 0, "C": 2, "D": 1, "E": 0, "F": 1}
SEED003_RUN = ["B", "A", "C", "E", "D", "F"]


def test_seed003_cutoff_measures(wh, tmp_path):
    ev = evaluate(wh, tmp_path, {"q1": SEED003_Q1}, {"q1": SEED003_RUN},
                  ["P@5", "R@5", "AP@5", "RR@5", "AP@6", "AP@2", "AP@2(denom=min)"])
    assert ev.value("r", "P@5") == approx(0.6)
    assert ev.value("r", "R@5") == approx(0.75)
    assert ev.value("r", "AP@5") == approx(Fraction(53, 120))
    assert ev.value("r", "RR@5") == approx(0.5)
    assert ev.value("r", "AP@6") == approx(Fraction(1, 2) / 4 + Fraction(2, 3) / 4 + Fraction(3, 5) / 4
                                           + Fraction(4, 6) / 4)
    assert ev.value("r", "AP@2") == approx(0.125)
    assert ev.value("r", "AP@2(denom=min)") == approx(0.25)


def test_seed003_second_query_macro_and_micro(wh, tmp_path):
    ev = evaluate(wh, tmp_path, {"q1": SEED003_Q1, "q2": {"X": 1}}, {"q1": SEED003_RUN, "q2": ["X"]},
                  ["AP@5", "RR", "R@5"])
    assert ev.value("r", "AP@5") == approx((Fraction(53, 120) + 1) / 2)  # 0.720833...
    assert ev.value("r", "RR") == approx(0.75)
    summary = {m: (v, micro, n) for _run, m, v, micro, n in ev.summary.rows}
    assert summary["R@5"] == (approx(0.875), approx(0.8), 2)
    assert ev.norel_queries == 0


def test_seed003_empty_slots_count_as_non_relevant(wh, tmp_path):
    ev = evaluate(wh, tmp_path, {"q": {"a": 1, "b": 1, "c": 1}}, {"q": ["a", "b"]}, ["P@5"])
    assert ev.value("r", "P@5") == approx(0.4)


def test_seed003_queries_without_relevant_documents_are_excluded_and_counted(wh, tmp_path):
    judgments = {"q1": SEED003_Q1, "q2": {"X": 1}, "q3": {"Y": 0}}
    rankings = {"q1": SEED003_RUN, "q2": ["X"], "q3": ["Y", "Z"]}
    excluded = evaluate(wh, tmp_path, judgments, rankings, ["AP@5", "R@5"], norel="exclude")
    assert excluded.value("r", "AP@5") == approx((Fraction(53, 120) + 1) / 2)
    assert excluded.norel_queries == 1
    assert {row[4] for row in excluded.summary.rows} == {2}
    # trec_eval's convention (the default) keeps the query, scoring 0
    included = wh.evaluate("r", "q", ["AP@5"], norel="include")
    assert included.value("r", "AP@5") == approx((Fraction(53, 120) + 1) / 3)
    assert included.norel_queries == 1


def test_seed003_duplicate_docid_is_rejected_with_its_line(wh, tmp_path):
    path = tmp_path / "dup.txt"
    path.write_text("q1 Q0 A 1 3 sys\nq1 Q0 C 2 2 sys\nq1 Q0 A 3 1 sys\n")
    with pytest.raises(InputFileError) as info:
        wh.ingest_run(path, "dup")
    assert f"{path}:3: duplicate document A for query q1 (first at line 1)" in str(info.value)


# -- seed 004: Recall@K / Precision@K ---------------------------------------------------------
def test_seed004_recall_and_precision_at_k(wh, tmp_path):
    ev = evaluate(wh, tmp_path,
                  {"q1": {"d2": 1, "d7": 1, "d11": 1}, "q2": {"d1": 1, "d11": 1}},
                  {"q1": ["d1", "d2", "d3", "d4", "d5"], "q2": ["d6", "d7", "d8", "d9", "d10"]},
                  ["R@5", "P@5", "R@3", "P@3"])
    assert per_query(ev, "q1", "R@5") == approx(Fraction(1, 3))
    assert per_query(ev, "q1", "P@5") == approx(Fraction(1, 5))
    assert per_query(ev, "q2", "R@5") == approx(0)
    assert per_query(ev, "q2", "P@5") == approx(0)
    assert ev.value("r", "R@5") == approx(Fraction(1, 6))
    assert ev.value("r", "P@5") == approx(Fraction(1, 10))
    # Recall@K = Precision@K x K / |rel|, equal when K = |rel|
    assert per_query(ev, "q1", "R@3") == approx(per_query(ev, "q1", "P@3"))


def test_seed001_r_precision_is_the_definition_not_the_sentence(wh, tmp_path):
    judgments = {"top": {"a": 1, "b": 1, "c": 1}, "spread": {"x1": 1, "x40": 1, "x60": 1}}
    spread = [f"x{i}" if i in (1, 40, 60) else f"n{i}" for i in range(1, 61)]
    ev = evaluate(wh, tmp_path, judgments, {"top": ["a", "b", "c"], "spread": spread}, ["Rprec"])
    assert per_query(ev, "top", "Rprec") == approx(1)
    assert per_query(ev, "spread", "Rprec") == approx(Fraction(1, 3))
