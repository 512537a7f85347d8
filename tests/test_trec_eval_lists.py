"""Parameter lists of `irw trec-eval` read as trec_eval reads them: their order, and repeats.

11pt_avg's recall levels are averaged as m_11ptavg.c walks them: from the last level given to the
first, while it walks the relevant documents up the ranking, so a level is read at its own number of
relevant documents only while the levels from it to the end ascend; from the first one out of that
order on, the rest read the whole ranking (interpolated precision at recall 0). irw read every
level alone: `11pt_avg.1.0,0.9,...,0.0` on DL19 BM25 printed 0.3236 where trec_eval prints 0.8578.

The expected values were printed by trec_eval (its library as pytrec-eval-terrier 0.5.11
builds it, linked to a main following trec_eval.c) for DL19 BM25 of ../shared/conformance: the
summary line and the SHA-256 of the -q output.
"""
from __future__ import annotations

import hashlib
import io
import re

import pytest

import warehouse
from warehouse.commands import trec_eval

from conftest import dl19_trec_eval

ELEVEN_POINTS = {
    "11pt_avg.0.8,0.5,0.2": ("0.6875", "7b009a077dc83be2b298e7c81a305828fbaddfd525f28814fe7c25e7d860d89e"),
    "11pt_avg.1,0.1": ("0.7476", "0e000bf6943faf8eed7431b05c8379959221a335fb2d1ade2cfc6249680a1b62"),
    "11pt_avg.1.0,0.9,0.8,0.7,0.6,0.5,0.4,0.3,0.2,0.1,0.0":
        ("0.8578", "61c2c46ec415ace91139ff62ec61468662509bce5c31c122744afd1f2f4ec109"),
}


@pytest.mark.parametrize("spec", list(ELEVEN_POINTS))
def test_eleven_point_levels_are_walked_in_trec_eval_s_order(conformance, spec):
    value, digest = ELEVEN_POINTS[spec]
    name = spec.replace(".", "_", 1)
    assert dl19_trec_eval(conformance, "-m", spec) == f"{name:<22}\tall\t{value}\n"
    assert hashlib.sha256(dl19_trec_eval(conformance, "-q", "-m", spec).encode()).hexdigest() == digest


def test_levels_in_ascending_order_read_each_level_alone(conformance):
    """In ascending order the walk reads every level at its own count: the mean of iprec_at_recall."""
    ascending = float(dl19_trec_eval(conformance, "-m", "11pt_avg.0.2,0.5,0.8").split("\t")[2])
    each = [float(line.split("\t")[2]) for line in
            dl19_trec_eval(conformance, "-m", "iprec_at_recall.0.2,0.5,0.8").splitlines()]
    assert ascending == pytest.approx(sum(each) / 3, abs=6e-5)


@pytest.mark.parametrize("spec", ["P.5,5", "P.5,5.5", "ndcg_cut.10,10,20", "iprec_at_recall.1,1.0",
                                  "Rprec_mult.0.2,.2"])
def test_a_list_giving_a_cutoff_twice_is_refused_as_trec_eval_refuses_it(conformance, spec):
    """trec_eval reads cutoffs with atol and recall levels with atof, and a list in which two read
    as the same number fails ("duplicate cutoffs detected", then "Cannot initialize measure")."""
    with pytest.raises(warehouse.MeasureError, match=re.escape(spec) + r": the list gives a (cutoff|level) twice"):
        dl19_trec_eval(conformance, "-m", spec)


def test_a_negative_multiple_of_r_is_zero_not_minus_zero(conformance):
    """Rprec_mult's cutoff is (long)(x * R + 0.9): for a negative x it is 0 or below, which no rank
    reaches, and trec_eval leaves the value at 0. irw divided 0 by the negative cutoff and printed
    -0.0000 on every query."""
    assert dl19_trec_eval(conformance, "-m", "Rprec_mult.-0.5,0.2") == (
        "Rprec_mult_-0.50      \tall\t0.0000\nRprec_mult_0.20       \tall\t0.6245\n")
    per_query = dl19_trec_eval(conformance, "-q", "-m", "Rprec_mult.-0.5,0.2")
    assert "-0.0000" not in per_query
    assert hashlib.sha256(per_query.encode()).hexdigest() == \
        "334e3174b4eae6c0040ec623b61404609b072741b5e6e7ae7d24ebaf76f27a74"


def test_only_the_first_list_of_a_family_is_read(conformance):
    """trec_eval reads a family's first parameter list: a repeated cutoff in a later one is never read."""
    assert dl19_trec_eval(conformance, "-m", "P.5,10", "-m", "P.5,5") == "P_5                   \tall\t0.6930\n" \
        "P_10                  \tall\t0.6186\n"


@pytest.mark.parametrize("spec, says", [
    ("ndcg.x=1", "ndcg.x=1: expected grade=gain pairs (whole-number grades: ndcg.1=3,2=9)"),
    ("G.0.5=1", "G.0.5=1: expected grade=gain pairs (whole-number grades: G.1=3,2=9)"),
    ("11pt_avg.a,b", "11pt_avg.a,b: expected numbers separated by commas"),
])
def test_a_list_irw_cannot_read_is_said_as_typed_before_any_file_is_read(tmp_path, spec, says):
    """trec_eval reads these with atol and atof (grade x is 0); irw says what it expected, naming the
    argument as given, before it looks at the files (here, files that do not exist)."""
    with pytest.raises(warehouse.MeasureError) as raised:
        trec_eval.run(["-m", spec, str(tmp_path / "absent-qrels"), str(tmp_path / "absent-run")], io.StringIO())
    assert str(raised.value) == says
