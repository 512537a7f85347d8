"""`irw trec-eval` as a user walked it: ir_measures names of one family all print (`-m P@5 -m P@10`
printed P_5 alone), trec_eval's nicknames `set` and `prefs` (refused as unknown), trec_eval's exit
statuses for a bad -m, flag or file, and -v saying the trec_eval version
--compat follows (it printed the same line for both).

The nicknames' members are measures.c's (te_trec_measure_nicknames), written here as trec_eval
lists them; trec_eval prints them in its table's order, which filtering its own outputs keeps.
"""
from __future__ import annotations

import io

import pytest
from typer.testing import CliRunner

from warehouse.commands import trec_eval
from warehouse.commands.irw import app
from warehouse.errors import MeasureError
from warehouse.evaluation import user_measures

from conftest import dl19_expected, dl19_trec_eval


def _printed(text: str) -> list[tuple[str, str, str]]:
    return [tuple(field.strip() for field in line.split("\t")) for line in text.splitlines()]


# -- ir_measures names of one family -----------------------------------------------------------------

@pytest.mark.conformance
def test_ir_measures_names_of_one_family_all_print_with_trec_eval_s_values(conformance):
    printed = dl19_trec_eval(conformance, "-m", "P@5", "-m", "P@10", "-m", "R@100", "-m", "R@1000")
    assert printed == dl19_trec_eval(conformance, "-m", "P.5,10", "-m", "recall.100,1000")
    expected = dl19_expected(conformance, "BM25")
    assert _printed(printed) == [(name, "all", expected[(name, "all")])
                                 for name in ("P_5", "P_10", "recall_100", "recall_1000")]
    printed = dl19_trec_eval(conformance, "-m", "nDCG@10", "-m", "nDCG@20")
    assert _printed(printed) == [(name, "all", expected[(name, "all")]) for name in ("ndcg_cut_10", "ndcg_cut_20")]
    # the names trec_eval prints are irw's too, and print alike
    assert dl19_trec_eval(conformance, "-m", "P_5", "-m", "P_10") == dl19_trec_eval(conformance, "-m", "P.5,10")


@pytest.mark.conformance
@pytest.mark.parametrize("argv, names", [
    # trec_eval's own syntax keeps its rule: the family's first list is read
    (["-m", "P.5", "-m", "P.10"], ["P_5"]),
    # an ir_measures name joins that list, whichever comes first
    (["-m", "P.5", "-m", "P.10", "-m", "P@20"], ["P_5", "P_20"]),
    (["-m", "P@20", "-m", "P.5", "-m", "P.10"], ["P_5", "P_20"]),
    (["-m", "P.5,10", "-m", "P@10"], ["P_5", "P_10"]),
    # with no list in trec_eval's syntax it is the list, as `-m all_trec -m P.7` prints P_7 alone
    (["-m", "all_trec", "-m", "P@7"], ["P_7"]),
    (["-m", "RR@10", "-m", "RR@5", "-m", "IPrec@0.5", "-m", "iprec_at_recall.0.2"],
     ["iprec_at_recall_0.20", "iprec_at_recall_0.50", "recip_rank_cut_5", "recip_rank_cut_10"]),
])
def test_trec_eval_s_first_list_rule_and_ir_measures_names_together(conformance, argv, names):
    printed = [name for name, _, _ in _printed(dl19_trec_eval(conformance, *argv))]
    families = tuple({name.rsplit("_", 1)[0] + "_" for name in names})
    assert [name for name in printed if name.startswith(families)] == names


@pytest.mark.conformance
def test_two_lists_of_a_family_of_one_value_are_refused_rather_than_one_dropped(conformance, capsys):
    with pytest.raises(MeasureError, match=r"^SetF\(beta=0\.5\), SetF\(beta=2\): trec_eval computes set_F with one "
                                           r"parameter list, so one run prints one of them: ask for one here"):
        dl19_trec_eval(conformance, "-m", "SetF(beta=0.5)", "-m", "SetF(beta=2)")
    # one list asked for twice, or in either syntax, is one list
    assert _printed(dl19_trec_eval(conformance, "-m", "SetF(beta=0.5)", "-m", "set_F.0.5", "-m", "AP", "-m", "map")) \
        == [("map", "all", "0.2993"), ("set_F_0.5", "all", "0.3052")]


# -- trec_eval's nicknames -------------------------------------------------------------------------

# measures.c's te_trec_measure_nicknames, in the order it lists each set's names
NICKNAME_MEMBERS = {
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg"),
}
# (the nickname, irw trec-eval's other arguments, trec_eval's output file, the nickname's lines of it
# only): the out files' names say their options (TESTS.md); .v9 ones are 9.0.8's, the others 10.0's
NICKNAME_CASES = [
    ("official", ["--compat", "10", "qrels.test", "results.test"], "out.test", False),
    ("official", ["qrels.test", "results.test"], "out.test.v9", False),
    ("all_trec", ["--compat", "10", "qrels.test", "results.test"], "out.test.a", False),
    ("all_prefs", ["-q", "-R", "prefs", "prefs.test", "prefs.results.test"], "out.test.prefs", False),
    ("qrels_jg", ["-q", "-R", "qrels_jg", "qrels.123", "results.test"], "out.test.qrels_jg", False),
    ("set", ["--compat", "10", "qrels.test", "results.test"], "out.test.a", True),
    ("set", ["--compat", "10", "-q", "qrels.test", "results.test"], "out.test.aq", True),
    ("set", ["-q", "qrels.test", "results.test"], "out.test.aq.v9", True),
    ("prefs", ["-q", "-R", "prefs", "prefs.test", "prefs.results.test"], "out.test.prefs", True),
    ("prefs", ["-q", "-R", "qrels_prefs", "qrels.test", "results.test"], "out.test.qrels_prefs", True),
]


@pytest.mark.conformance
@pytest.mark.parametrize("nickname, argv, out_file, filtered", NICKNAME_CASES,
                         ids=[f"{case[0]}-{case[2]}" for case in NICKNAME_CASES])
def test_each_nickname_alone_prints_trec_eval_s_lines_byte_for_byte(conformance, nickname, argv, out_file, filtered):
    folder = conformance / "trec_eval_test"
    expected = (folder / out_file).read_text()
    if filtered:
        expected = "".join(line for line in expected.splitlines(keepends=True)
                           if line.split("\t")[0].rstrip(" ") in NICKNAME_MEMBERS[nickname])
        assert {line.split("\t")[0].rstrip(" ") for line in expected.splitlines()} == set(NICKNAME_MEMBERS[nickname])
    out = io.StringIO()
    trec_eval.run(["-m", nickname, *[str(folder / a) if (folder / a).is_file() else a for a in argv]], out)
    assert out.getvalue() == expected


@pytest.mark.parametrize("name", ["set", "prefs", "Set", "PREFS"])
def test_a_user_measure_is_not_named_like_a_nickname(name):
    text = (f"-- measure: {name}\n-- parameters: none\n-- aggregate: mean\n"
            "select run_id, query_id, 1.0 as value from ranked_judged group by run_id, query_id\n")
    with pytest.raises(user_measures.MeasureFileError) as refused:
        user_measures.parse_definition(text, "mine.sql")
    says = (f"{name} is the name of trec_eval's measure set `-m {name}`" if name.islower()
            else f"{name} differs from the built-in measure {name.lower()} only in letter case")
    assert str(refused.value).startswith(f"mine.sql:1: {says}")


# -- exit status and -v ----------------------------------------------------------------------------

def _both(argv: list[str], capsys) -> tuple[int, str, str]:
    """The exit status, stdout and stderr of the fast path (trec_eval.main), checked equal to the
    Typer command's."""
    status = trec_eval.main(list(argv))
    fast = (status, *capsys.readouterr())
    result = CliRunner().invoke(app, ["trec-eval", *argv])
    assert (result.exit_code, result.stdout, result.stderr) == fast
    return fast


@pytest.mark.conformance
@pytest.mark.parametrize("measure, status, says", [
    # trec_eval's statuses (trec_eval.c): 1 for "illegal measure", 2 for "Cannot initialize measure"
    ("bogus", 1, "unknown measure 'bogus'"),
    ("rbp", 1, "rbp is a measure of trec_eval 10.0"),
    ("P.abc", 2, "P.abc: 'abc' is not a number"),
    ("P.5,5", 2, "P.5,5: the list gives a cutoff twice"),
    ("ndcg.p", 2, "ndcg.p: expected grade=gain pairs"),  # get_param_pairs: "malformed pair parameters"
    ("prefs", 2, "prefs_num_prefs_poss, prefs_num_prefs_ful, prefs_num_prefs_ful_ret, prefs_simp, prefs_pair, "
                 "prefs_avgjg read preference judgments"),
    # an ir_measures name with a wrong parameter is said as irw eval says it (a names walk: it was
    # "unknown measure 'P@0'")
    ("P@0", 2, "P@0: cutoff '0' must be at least 1\n"),
    ("nDCG@-1", 2, "nDCG@-1: cutoff '-1' must be at least 1\n"),
    ("nDCG(judged_only=True)@10", 2, "nDCG(judged_only=True)@10: judged_only is a setting of the whole evaluation"),
])
def test_a_bad_measure_exits_as_trec_eval_does(conformance, capsys, measure, status, says):
    folder = conformance / "trec_eval_test"
    exit_status, out, err = _both(["-m", measure, str(folder / "qrels.test"), str(folder / "results.test")], capsys)
    assert (exit_status, out) == (status, "") and err.startswith(f"Error: {says}"), err


@pytest.mark.conformance
def test_usage_mistakes_and_bad_files_exit_as_trec_eval_does(conformance, capsys, tmp_path):
    """A walk's table: trec_eval exits 1 for its usage (an unknown flag, a wrong number of files)
    and 2 for a file it cannot read ("Quit in file"); irw trec-eval exited 2 and 1."""
    qrels, run = conformance / "trec_eval_test" / "qrels.test", conformance / "trec_eval_test" / "results.test"
    assert _both(["-x", str(qrels), str(run)], capsys)[0] == 1
    assert _both([str(qrels)], capsys)[0] == 1
    assert _both([str(qrels), str(tmp_path / "missing.txt")], capsys)[0] == 2
    (tmp_path / "bad.txt").write_text("1 Q0 d1 1 not-a-score run\n")
    assert _both([str(qrels), str(tmp_path / "bad.txt")], capsys)[0] == 2
    # "Illegal rel_format" and "Illegal retrieval results format" exit 2 in trec_eval.c (a messy-input
    # walk: irw exited 1, argparse's choices)
    assert _both(["-R", "qrel", str(qrels), str(run)], capsys) == (
        2, "", "Error: illegal rel_format 'qrel': -R takes qrels, qrels_jg, prefs or qrels_prefs\n")
    assert _both(["-T", "trec", str(qrels), str(run)], capsys) == (
        2, "", "Error: illegal retrieval results format 'trec': -T takes trec_results, the only one trec_eval reads\n")
    assert _both(["-R", "qrel", str(qrels)], capsys)[0] == 1  # the usage first, as trec_eval checks it first


@pytest.mark.conformance
@pytest.mark.parametrize("measure", ["map.5", "Rprec.x", "num_q.3", "runid.1"])
def test_a_parameter_of_a_measure_that_takes_none_is_ignored_as_trec_eval_ignores_it(conformance, capsys, measure):
    """trec_eval's init of a measure without parameters never reads the list: `-m map.5` prints
    map (irw refused it: "map takes no parameters")."""
    folder = conformance / "trec_eval_test"
    files = [str(folder / "qrels.test"), str(folder / "results.test")]
    bare = _both(["-q", "-m", measure.partition(".")[0], *files], capsys)
    assert _both(["-q", "-m", measure, *files], capsys) == bare and bare[0] == 0 and bare[1]


def test_version_says_the_trec_eval_version_compat_follows(capsys):
    """trec_eval's line alone (a script reads its third field); `irw --version` says irw's."""
    assert _both(["-v"], capsys) == (0, "", "trec_eval version 9.0.7\n")
    assert _both(["-v", "--compat", "10"], capsys) == (0, "", "trec_eval version 10.0-rc3\n")
    assert _both(["--compat=10", "--version"], capsys)[2] == "trec_eval version 10.0-rc3\n"
    assert _both(["-v", "--compat", "11"], capsys)[0] == 1
