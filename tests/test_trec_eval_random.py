"""`irw trec-eval` prints what trec_eval (C) printed on 120 random calls (tests/trec_eval_cases.py):
random small files, options and parameter lists, each case made again from its number and its
output compared by SHA-256 with trec_eval's (its library as pytrec-eval-terrier 0.5.11 builds it,
which prints the 9.0.8 release's numbers but reads relstring's parameter), recorded in
tests/trec_eval_cases.json.

A differential run of this kind against trec_eval found the gain maps sorted by gain rather than
as trec_eval's qsort leaves them, 11pt_avg's levels read alone rather than in trec_eval's walk, and
lists with a repeated cutoff printed rather than refused; these cases hold all three.
"""
from __future__ import annotations

import json

import pytest

from trec_eval_cases import RECORDED, SEED, digest, make_case, run_irw

RECORD = json.loads(RECORDED.read_text())
CASES = RECORD["cases"]


def test_the_record_is_of_these_cases():
    assert RECORD["seed"] == SEED and [c["case"] for c in CASES] == list(range(len(CASES))) and len(CASES) >= 100
    assert sum(c["status"] == 0 for c in CASES) >= 100  # mostly output, some refusals


@pytest.mark.parametrize("chunk", range(4))
def test_irw_prints_what_trec_eval_printed(tmp_path, chunk):
    for case in CASES[chunk::4]:
        argv = make_case(case["case"], tmp_path)
        assert " ".join(a.replace(str(tmp_path) + "/", "") for a in argv) == case["argv"]
        status, out = run_irw(argv)
        context = (case["case"], case["argv"])
        if case["status"] != 0:
            assert status != 0, context  # trec_eval refused it (no query in both, a repeated cutoff)
            continue
        assert status == 0 and out.count("\n") == case["lines"] and digest(out) == case["sha256"], context
