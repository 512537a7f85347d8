"""A measure-names walk: every name irw takes is one key, and a key is one measure.

- `irw trec-eval -m map_ties` (a trec_eval-style name of irw's tie-aware AP, listed by `irw
  measures`) printed 0.0000 for every query: computed without its ties= option. It is refused,
  saying how to ask for it.
- Keys rounded their parameter: Rprec_mult.0.505 was stored as Rprec_mult_0.51 (trec_eval's two
  places), IPrec@0.1234567 as IPrec@0.123457, so a later request of the other value read the first
  one's scores. A key holds every digit its parameter needs.
- P_0 (a name as trec_eval prints it) was taken, and stored P@0, where P@0 and P.0 are refused.
- Names irw prints in `-f trec` (P_rel_2_10, map_ties_min) were refused when typed back.
- utility.2.0,-1,0,0 and utility.2,-1,0,0 (the same numbers) were two keys.
"""
from __future__ import annotations

import pytest

from warehouse.commands import trec_eval
from warehouse.errors import MeasureError
from warehouse.evaluation.measures import parse, stored_name

from conftest import dl19_cli, dl19_trec_eval

TIE_NAMES = ["map_ties", "P_ties", "P_ties.10", "P_ties_10", "recip_rank_ties", "ndcg_cut_ties.10", "recall_ties"]


def _dl19_argv(conformance, *argv):
    folder = conformance / "dl19-passage"
    return [*argv, str(folder / "qrels.dl19-passage.txt"), str(folder / "runs" / "run.dl19.BM25.txt")]


@pytest.mark.parametrize("name", TIE_NAMES)
def test_trec_eval_refuses_a_tie_aware_name_without_its_mode(conformance, capsys, name):
    status = trec_eval.main(_dl19_argv(conformance, "-q", "-m", name))
    out, err = capsys.readouterr()
    assert (status, out) == (1, "")
    assert "need ties=expected, min or max" in err and "irw eval -m '" in err and "(ties=expected)" in err


@pytest.mark.parametrize("name, says", [
    ("map_ties_min", "options only at their defaults"),
    ("P_ties_max_10", "options only at their defaults"),
    ("P_rel_2_10", "use -l 2 -m P.10"),
    ("map_rel_2", "use -l 2 -m map"),
])
def test_trec_eval_says_what_to_do_with_a_name_irw_prints(conformance, capsys, name, says):
    status = trec_eval.main(_dl19_argv(conformance, "-m", name))
    out, err = capsys.readouterr()
    assert (status, out) == (1, "")  # trec_eval has no measure of such a name: "illegal measure", as map_ties
    assert says in err


@pytest.mark.parametrize("printed, meant", [
    ("P_rel_2_10", "P(rel=2)@10"), ("map_rel_2", "AP(rel=2)"), ("set_F_rel_2_0.5", "SetF(beta=0.5,rel=2)"),
    ("recall_rel_2_1000", "R(rel=2)@1000"), ("gm_bpref_rel_2", "gm_bpref(rel=2)"),
    ("map_ties_expected", "AP(ties=expected)"), ("map_ties_min", "AP(ties=min)"),
    ("P_ties_min_10", "P(ties=min)@10"), ("ndcg_cut_ties_max_10", "nDCG(ties=max)@10"),
])
def test_a_name_irw_prints_is_a_name_it_takes(printed, meant):
    measure, = parse(meant)
    assert measure.trec_name_at(1) == printed  # as `irw eval -f trec` prints it at level 1
    assert parse(printed) == [measure]


@pytest.mark.parametrize("name", ["P_0", "P_00", "ndcg_cut_0", "recall_0", "success_0", "map_cut_0", "relative_P_0"])
def test_a_cutoff_of_zero_is_refused_in_every_spelling(name):
    with pytest.raises(MeasureError, match="must be at least 1"):
        parse(name)


def test_irw_eval_refuses_p_0_as_the_leaderboard_does(conformance, tmp_path):
    irw = dl19_cli(conformance, tmp_path, runs=("BM25",))
    for command in (["eval", "BM25", "-m", "P_0"], ["report", "leaderboard", "-m", "P_0", "-o", tmp_path / "lb.html"]):
        result = irw(*command)
        assert result.exit_code == 2 and "cutoff '0' must be at least 1" in result.stderr
    assert irw("sql", "select count(*) from scores").stdout.split()[-1] == "0"


@pytest.mark.parametrize("a, b", [
    ("Rprec_mult.0.505", "Rprec_mult.0.51"), ("Rprec_mult_avgjg.0.505", "Rprec_mult_avgjg.0.51"),
    ("IPrec@0.1234567", "IPrec@0.1234573"), ("set_F.0.1234567", "set_F.0.1234573"),
    ("alpha_nDCG(alpha=0.1234567)@10", "alpha_nDCG(alpha=0.1234573)@10"),
])
def test_two_parameters_are_two_keys(a, b):
    (first,), (second,) = parse(a), parse(b)
    assert stored_name(first) != stored_name(second)
    assert parse(first.name) == [first] and parse(second.name) == [second]


@pytest.mark.parametrize("name, key", [
    ("Rprec_mult.0.2", "Rprec_mult_0.20"), ("Rprec_mult.0.5", "Rprec_mult_0.50"), ("iprec_at_recall.0.1", "IPrec@0.1"),
    ("set_F.0.5", "SetF(beta=0.5)"), ("11pt_avg", "11pt_avg"), ("utility", "utility"),
])
def test_keys_of_the_usual_parameters_are_as_they_were(name, key):
    # scores stored under these keys by earlier irws are read, not computed again
    assert [stored_name(m) for m in parse(name)] == [key]


@pytest.mark.parametrize("spellings", [
    ["utility.2,-1,0,0", "utility.2.0,-1,0,0", "utility.2,-1.0,0e0,0"],
    ["11pt_avg..25,.5", "11pt_avg.0.25,0.50"],
    ["11pt_avg", "11pt_avg.0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0", "11pt_avg.0,.1,.2,.3,.4,.5,.6,.7,.8,.9,1"],
    ["ndcg.1=3,2=9", "ndcg.1=3.0,2=9", "ndcg.01=3,2=9.0"],
])
def test_one_list_of_numbers_is_one_key(spellings):
    assert len({stored_name(m) for spelling in spellings for m in parse(spelling)}) == 1


def test_a_gain_map_in_another_order_stays_another_measure():
    # trec_eval sorts its gain table with qsort and a comparator of gains truncated to int, so the
    # order pairs are given in decides the order of gains less than 1 apart (gain_order.py)
    assert stored_name(parse("ndcg.1=3,2=9")[0]) != stored_name(parse("ndcg.2=9,1=3")[0])


@pytest.mark.parametrize("first, then", [("Rprec_mult.0.505", "Rprec_mult.0.51"),
                                         ("Rprec_mult.0.51", "Rprec_mult.0.505")])
def test_rprec_mult_of_two_parameters_stores_each_one_s_numbers(conformance, tmp_path, first, then):
    irw = dl19_cli(conformance, tmp_path, runs=("BM25",))
    expected = {name: dl19_trec_eval(conformance, "-m", name).split("\t")[-1].strip() for name in (first, then)}
    assert expected["Rprec_mult.0.505"] != expected["Rprec_mult.0.51"]  # 0.4981 and 0.4971
    for name in (first, then):  # the first stored, then the other asked for (it read the first's)
        result = irw("eval", "BM25", "-m", name, "-f", "csv")
        assert result.exit_code == 0, result.stderr
        assert f"{float(result.stdout.splitlines()[1].split(',')[-1]):.4f}" == expected[name]
    # trec-eval prints both at two places, as trec_eval 9.0.8 prints them
    assert dl19_trec_eval(conformance, "-m", "Rprec_mult.0.505").startswith("Rprec_mult_0.51 ")


def test_trec_eval_says_where_diversity_measures_are_computed(conformance, capsys):
    status = trec_eval.main(_dl19_argv(conformance, "-m", "alpha_ndcg"))
    out, err = capsys.readouterr()
    assert status != 0 and out == ""
    # was "qrels qrels has none: ingest ... and evaluate with --qrels NAME", advice for a warehouse
    assert "qrels qrels" not in err and "evaluate in a warehouse: `irw ingest qrels FILE --subtopics" in err


@pytest.mark.parametrize("name", ["AP(rel=-1)", "P(rel=2.5)@10", "gm_bpref(rel=99999999999)", "P_rel_99999999999_10"])
def test_a_measure_s_own_level_out_of_range_is_said_with_the_measure(name):
    # was "level takes an integer from 0 to 2147483647 ...", not naming the measure (rel=2.5 read as 2)
    with pytest.raises(MeasureError, match=r"rel= takes an integer from 0 to 2147483647") as refused:
        parse(name)
    assert str(refused.value).startswith(f"{name}: ")
