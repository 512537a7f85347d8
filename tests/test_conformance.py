"""Byte-for-byte parity with trec_eval's own outputs in ../shared/conformance.

Every expected file there is checked: trec_eval_test/ (the commands of its TESTS.md; `.v9` files
against the default 9.0.8 conventions, the others with --compat 10) and dl19-passage/
(`-m all_trec -q`, with and without `-l 2`, both versions). Every test requests conftest's
`conformance` fixture: skipped where the folder is absent, a failure under CI.
"""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from conftest import CONFORMANCE, conformance_params
from warehouse.ingestion import files as ingest
from warehouse.commands import trec_eval

# every test here reads the folder: the fixture skips them where it is absent and fails them under CI
pytestmark = pytest.mark.usefixtures("conformance")

TREC_EVAL_TEST = CONFORMANCE / "trec_eval_test"
DL19 = CONFORMANCE / "dl19-passage"

MEAS_PARAMS = ("-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 "
               "-mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 "
               "-msuccess.2,5,20 qrels.test results.test")

# expected file (without .v9) -> trec_eval arguments, from trec_eval_test/TESTS.md
TREC_EVAL_CASES = {
    "out.test": "qrels.test results.test",
    "out.comment.test": "qrels.comment.test results.comment.test",
    "out.test.a": "-m all_trec qrels.test results.test",
    "out.test.aq": "-m all_trec -q qrels.test results.test",
    "out.test.aqc": "-m all_trec -q -c qrels.test results.trunc",
    "out.test.aqcM": "-m all_trec -q -c -M100 qrels.test results.trunc",
    "out.test.aql": "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test",
    "out.test.meas_params": MEAS_PARAMS,
    "out.test.aqZ": "-q -m all_trec -Z zscores_file qrels.test results.test",
    "out.test.qrels_jg": "-m qrels_jg -q -R qrels_jg qrels.123 results.test",
    "out.test.prefs": "-m all_prefs -q -R prefs prefs.test prefs.results.test",
    "out.test.qrels_prefs": "-m all_prefs -q -R qrels_prefs qrels.test results.test",
}
# Outputs of trec_eval features irw does not offer: none left.
NOT_COVERED: set[str] = set()


def run_trec_eval(args: list[str], cwd: Path, monkeypatch) -> str:
    monkeypatch.chdir(cwd)
    out = io.StringIO()
    trec_eval.run(args, out)
    return out.getvalue()


def trec_eval_test_cases():
    cases = []
    for path in sorted(TREC_EVAL_TEST.glob("out.*")):
        base = path.name[:-3] if path.name.endswith(".v9") else path.name
        if base in NOT_COVERED:
            continue
        compat = "9" if path.name.endswith(".v9") else "10"
        cases.append(pytest.param(path.name, ["--compat", compat, *TREC_EVAL_CASES[base].split()], id=path.name))
    return cases


@pytest.mark.parametrize("expected_name, args", conformance_params(trec_eval_test_cases, 2))
def test_trec_eval_test_outputs(expected_name, args, monkeypatch):
    expected = (TREC_EVAL_TEST / expected_name).read_text()
    assert run_trec_eval(args, TREC_EVAL_TEST, monkeypatch) == expected


def test_every_trec_eval_test_output_is_covered():
    names = {p.name[:-3] if p.name.endswith(".v9") else p.name for p in TREC_EVAL_TEST.glob("out.*")}
    assert names <= set(TREC_EVAL_CASES) | NOT_COVERED


def dl19_cases():
    cases = []
    pattern = re.compile(r"expected_run\.dl19\.(?P<run>.+)\.all_trec\.q(?P<l2>\.l2)?\.v(?P<v>9|10)\.txt$")
    for path in sorted(DL19.glob("expected_*.txt")):
        match = pattern.match(path.name)
        if not match:
            continue
        args = ["--compat", match["v"], "-m", "all_trec", "-q"]
        if match["l2"]:
            args += ["-l", "2"]
        args += ["qrels.dl19-passage.txt", f"runs/run.dl19.{match['run']}.txt"]
        cases.append(pytest.param(path.name, args, id=path.name))
    return cases


@pytest.mark.parametrize("expected_name, args", conformance_params(dl19_cases, 2))
def test_dl19_passage_outputs(expected_name, args, monkeypatch):
    expected = (DL19 / expected_name).read_text()
    assert run_trec_eval(args, DL19, monkeypatch) == expected


def test_dl19_covers_all_24_expected_files():
    assert len(dl19_cases()) == 24


def _without_relstring(case):
    """The same case with every all_trec measure but relstring: the trec_eval drop-in then keeps
    only judged run rows, ranked by counting (warehouse/ingestion/files.py judged_rows_only), so that path
    is held to trec_eval's own output too."""
    from warehouse.evaluation.measures import FAMILIES

    expected_name, args = case.values
    families = [name for name, family in FAMILIES.items() if name != "relstring" and not family.v10_only]
    args = [a for a in args if a not in ("-m", "all_trec", "-mrelstring.20")]
    requested = [arg for name in families for arg in ("-m", name)]
    return pytest.param(expected_name, requested + args, id=f"{expected_name}-judged-rows-only")


def judged_rows_only_cases():
    cases = [c for c in trec_eval_test_cases() + dl19_cases()
             if c.values[0].endswith((".v9", ".v9.txt")) and "all_trec" in c.values[1]]
    return [_without_relstring(c) for c in cases]


@pytest.mark.parametrize("expected_name, args", conformance_params(judged_rows_only_cases, 2))
def test_outputs_from_judged_rows_only(expected_name, args, monkeypatch):
    folder = TREC_EVAL_TEST if expected_name.startswith("out.") else DL19
    expected = "".join(line for line in (folder / expected_name).read_text().splitlines(keepends=True)
                       if not line.startswith("relstring"))
    judged_rows_only = []
    original = ingest.ingest_run

    def spy(*a, **k):
        judged_rows_only.append(k.get("judged_rows_only"))
        return original(*a, **k)

    monkeypatch.setattr(ingest, "ingest_run", spy)
    assert run_trec_eval(args, folder, monkeypatch) == expected
    assert judged_rows_only == [True]


def test_judged_rows_only_cases_cover_both_folders():
    names = [c.values[0] for c in judged_rows_only_cases()]
    assert sum(n.startswith("out.") for n in names) >= 4 and sum(n.startswith("expected_") for n in names) == 12
