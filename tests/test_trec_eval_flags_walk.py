"""`irw trec-eval`'s flags as a user walked them replacing trec_eval 9.0.8 in a pipeline (its
getopt string "hvqm:cl:nD:JN:M:R:T:oZ:" and getopt_long's table, trec_eval.c): -D 0 (its
default) was refused; -M 9223372036854775807 (MAXLONG, its own default) was out of range; unique
prefixes of its long names (--query, --meas) were unrecognized; -v printed `9.0.8:` as the third
field; and a qrels file's errors named `irw ingest` options (--subtopics, --qrels-format) where
trec-eval takes -R.
"""
from __future__ import annotations

import re

import pytest

from test_trec_eval_walk import _both


def _files(conformance) -> list[str]:
    folder = conformance / "trec_eval_test"
    return [str(folder / "qrels.test"), str(folder / "results.test")]


# -- -D: trec_eval's debug level --------------------------------------------------------------------

@pytest.mark.conformance
@pytest.mark.parametrize("flags", [["-D", "0"], ["-D0"], ["--Debug_level", "0"], ["--Debug_level=0"], ["-D", "00"]])
def test_debug_level_0_is_trec_eval_s_default_output(conformance, capsys, flags):
    default = _both(["-q", *_files(conformance)], capsys)
    assert default[0] == 0 and default[1].startswith("num_ret")
    assert _both([*flags, "-q", *_files(conformance)], capsys) == default


@pytest.mark.conformance
@pytest.mark.parametrize("value, says", [
    ("1", "-D 1: trec_eval prints debug output at levels 1 to 6"),
    ("6", "-D 6: trec_eval prints debug output at levels 1 to 6"),
    ("0.301", "-D 0.301: trec_eval's N.QID form evaluates query 301 alone"),
    ("2.301", "-D 2.301: trec_eval's N.QID form evaluates query 301 alone"),
    ("x", "-D takes a debug level, 0 here (trec_eval's default), not 'x'"),
])
def test_a_debug_level_irw_cannot_print_is_a_usage_error(conformance, capsys, value, says):
    status, out, err = _both(["-D", value, *_files(conformance)], capsys)
    assert (status, out) == (1, "") and err.startswith(f"Error: {says}"), err


# -- -M: MAXLONG, trec_eval's default, is no limit ------------------------------------------------------

@pytest.mark.conformance
@pytest.mark.parametrize("depth", ["9223372036854775807", "4611686018427387904", "99999999999999999999"])
def test_a_depth_at_or_beyond_the_largest_is_no_limit(conformance, capsys, depth):
    default = _both(["-m", "all_trec", *_files(conformance)], capsys)
    assert default[0] == 0
    assert _both(["-M", depth, "-m", "all_trec", *_files(conformance)], capsys) == default
    assert _both([f"--Max_retrieved_per_topic={depth}", "-m", "all_trec", *_files(conformance)], capsys) == default


# -- unique prefixes of trec_eval's long options --------------------------------------------------------

@pytest.mark.conformance
@pytest.mark.parametrize("long, short", [
    (["--query", "--meas", "map"], ["-q", "-m", "map"]),
    (["--q", "--m=P.5"], ["-q", "-m", "P.5"]),
    (["--c", "--n", "--quer", "--measure", "map"], ["-c", "-n", "-q", "-m", "map"]),
    (["--Max=10", "--J", "--lev", "2", "--Rel", "qrels", "--Res", "trec_results"],
     ["-M", "10", "-J", "-l", "2", "-R", "qrels", "-T", "trec_results"]),
    (["--Num", "5", "--Deb", "0", "--O", "-m", "utility"], ["-N", "5", "-m", "utility"]),
])
def test_unique_prefixes_of_trec_eval_s_long_options(conformance, capsys, long, short):
    expected = _both([*short, *_files(conformance)], capsys)
    assert expected[0] == 0
    assert _both([*long, *_files(conformance)], capsys) == expected


@pytest.mark.conformance
def test_an_ambiguous_prefix_and_irw_s_own_options_abbreviated(conformance, capsys):
    status, out, err = _both(["--Re", "qrels", *_files(conformance)], capsys)
    assert (status, out) == (1, "") and err.startswith(
        "Error: --Re is ambiguous (trec_eval's --Rel_info_format or --Results_format): give more of the name"), err
    # irw's own options are taken whole, as before: --eng is not --engine
    status, out, err = _both(["--eng", "duckdb", *_files(conformance)], capsys)
    assert (status, out) == (1, "") and err.startswith("Error: unrecognized arguments: --eng"), err
    # a value is never read as an option's prefix (-m's argument is the measure --q, refused as one)
    status, _, err = _both(["-m", "--q", *_files(conformance)], capsys)
    assert status == 1 and "--query_eval_wanted" not in err


# -- -v: trec_eval's line, alone ----------------------------------------------------------------------

def test_version_is_what_the_binaries_behind_the_conformance_outputs_print(conformance, capsys):
    """-v printed 9.0.8 and, with --compat 10, 10.0-rc2, the Makefiles' VERSIONID as read from the
    code; the binaries whose outputs conformance holds print 9.0.7 (tag v9.0.8) and 10.0-rc3 (a walk)."""
    source = (conformance / "dl19-passage" / "SOURCE.txt").read_text()
    printed = dict(re.findall(r"^\s*\.(v9|v10)\.txt\s*=.*\(.*?binary prints ([^)\s]+)\)", source, re.M))
    assert set(printed) == {"v9", "v10"}, source
    assert _both(["-v"], capsys) == (0, "", f"trec_eval version {printed['v9']}\n")
    assert _both(["-v", "--compat", "10"], capsys) == (0, "", f"trec_eval version {printed['v10']}\n")


def test_version_prints_trec_eval_s_line_alone(capsys):
    assert _both(["-v"], capsys) == (0, "", "trec_eval version 9.0.7\n")
    assert _both(["--version"], capsys) == (0, "", "trec_eval version 9.0.7\n")
    assert _both(["--vers"], capsys) == (0, "", "trec_eval version 9.0.7\n")
    assert _both(["-v", "--compat", "10"], capsys) == (0, "", "trec_eval version 10.0-rc3\n")
    assert _both(["--compat=10", "--version"], capsys) == (0, "", "trec_eval version 10.0-rc3\n")
    # its third field is the version, as a script reading trec_eval's reads it
    assert _both(["-v"], capsys)[2].split()[2] == "9.0.7"


# -- hints: trec-eval's -R, not irw ingest's options -------------------------------------------------

@pytest.mark.conformance
def test_duplicate_judgments_hint_at_r_qrels_jg(conformance, capsys):
    folder = conformance / "trec_eval_test"
    status, out, err = _both([str(folder / "qrels.123"), str(folder / "results.test")], capsys)
    assert (status, out) == (2, "")
    assert "if they name judgment groups (trec_eval's qrels_jg), give -R qrels_jg" in err, err
    assert "--subtopics" not in err
    # read as judgment groups it evaluates
    assert _both(["-R", "qrels_jg", str(folder / "qrels.123"), str(folder / "results.test")], capsys)[0] == 0


@pytest.mark.conformance
def test_the_other_prefs_format_hints_at_the_r_value(conformance, capsys):
    folder = conformance / "trec_eval_test"
    status, out, err = _both(["-R", "prefs", str(folder / "qrels.test"), str(folder / "results.test")], capsys)
    assert (status, out) == (2, "")
    assert "looks like a qrels file" in err and "give -R qrels_prefs to read a qrels file as preferences" in err, err
    assert "--qrels-format" not in err and "irw ingest" not in err
    status, out, err = _both(["-R", "qrels_prefs", str(folder / "prefs.test"), str(folder / "prefs.results.test")],
                             capsys)
    assert (status, out) == (2, "")
    assert "looks like a preference file" in err and "give -R prefs to read preference judgments" in err, err
    assert "--qrels-format" not in err and "irw ingest" not in err


@pytest.mark.conformance
def test_a_file_taken_as_the_measure_is_said_so(conformance, capsys):
    """`irw trec-eval -m qrels run` (the measure forgotten): -m took the qrels file, and the error
    said only that a run file is required (a walk)."""
    qrels, run = _files(conformance)
    status, out, err = _both(["-m", qrels, run], capsys)
    assert (status, out) == (1, "")
    assert err.splitlines()[0] == (f"Error: at least one run file is required (-m took {qrels}, a file, as its "
                                   "measure: give -m a measure, -m map)"), err
    status, _, err = _both(["-m", "map", qrels], capsys)  # a measure given: said as before
    assert status == 1 and err.splitlines()[0] == "Error: at least one run file is required", err
