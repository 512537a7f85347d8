"""A relevance level below 0 (`irw trec-eval -l-1`, `irw eval -l -1`, `AP(rel=-1)`) printed numbers
trec_eval does not: on DL19's BM25 at -l-1, 42 of all_trec's 94 lines differed (map 0.2311 where
trec_eval 9.0.8 prints 0.5499). Below 0, trec_eval compares its markers for documents the qrels do
not judge (-1) or grade below 0 (-2) with the level, so at -l-1 every retrieved document counts as
relevant retrieved while R counts only the judged ones (its P_10 is 1.0 for any run). No measure here
reproduces that, so such a level is refused, saying why, and 0 or more is evaluated as before
(compared with trec_eval's outputs by tests/test_conformance.py and the differential suites).
"""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

import warehouse
from conftest import Cli
from warehouse.commands import trec_eval
from warehouse.errors import MeasureError, SettingError
from warehouse.evaluation.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
WHY = ("takes an integer from 0 to 2147483647 (below 0, trec_eval counts the documents the qrels do not judge "
       "as relevant, which irw does not reproduce; 0 counts every judged document), not ")


@pytest.mark.parametrize("flags", [["-l-1"], ["-l", "-2"], ["-l-1", "-J"], ["--level_for_rel=-7", "-q"]])
def test_the_drop_in_refuses_a_level_below_0_and_prints_nothing(conformance, flags):
    folder = conformance / "dl19-passage"
    process = subprocess.run([sys.executable, "-m", "warehouse", "trec-eval", *flags, "-m", "map", "-m", "P.10",
                              str(folder / "qrels.dl19-passage.txt"), str(folder / "runs" / "run.dl19.BM25.txt")],
                             capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    level = flags[0].removeprefix("-l").removeprefix("--level_for_rel=") or flags[1]
    assert (process.returncode, process.stdout) == (1, "")  # a value it does not take: a usage mistake
    assert process.stderr == f"Error: -l {WHY}{level}\n"


def test_level_0_is_still_evaluated(conformance):
    folder = conformance / "dl19-passage"
    out = io.StringIO()
    trec_eval.run(["-l0", "-m", "num_rel", str(folder / "qrels.dl19-passage.txt"),
                   str(folder / "runs" / "run.dl19.BM25.txt")], out)
    assert out.getvalue() == "num_rel               \tall\t9260\n"  # every judged document (trec_eval's too)


def test_irw_eval_and_a_measure_s_rel_refuse_it(seeded_db):
    before = Cli(seeded_db)("eval", "--qrels", "base", "-m", "AP", "tagA", "-l", "-1")
    assert before.exit_code == 2 and before.stdout == ""
    assert before.stderr == f"Error: --level {WHY}-1\n"
    with warehouse.open(seeded_db) as wh:
        with pytest.raises(MeasureError, match=r"^AP\(rel=-1\): rel= takes .* \(below 0, trec_eval counts"):
            wh.evaluate("tagA", "base", ["AP(rel=-1)"])


def test_the_settings_refuse_it():
    with pytest.raises(SettingError) as caught:
        Settings(level=-1)
    assert str(caught.value) == f"level {WHY}-1"
    assert Settings(level=0).level == 0
