"""`irw eval` and `irw report history` as a user walk found them: -m all_trec under --compat 10,
trec_eval's -nan, -q -c for a query the run lacks, history given a name of several measures,
fractional cutoffs, and the report formats each command takes. Each is checked against trec_eval's
own outputs (../shared/conformance) where it has one."""
from __future__ import annotations

import csv
import io
import math

import pytest
import typer

from warehouse.commands import irw as cli
from warehouse.commands import trec_eval
from warehouse.errors import MeasureError
from warehouse.evaluation.measures import parse
from warehouse.formats.formatting import trec_line

from conftest import Cli

# what irw eval -f trec leaves to irw trec-eval: relstring is text, not a stored score, and the
# runid line names the stored run where trec_eval prints the file's tag
NOT_EVAL_LINES = ("runid ", "relstring ")


def eval_lines(text: str) -> list[str]:
    """trec_eval lines in a comparable order: irw eval -f trec prints them run by run in its
    measure order, the docs promise trec_eval's names and line format, not its order."""
    return sorted(line for line in text.splitlines() if not line.startswith(NOT_EVAL_LINES))


@pytest.fixture(scope="module")
def dl19(tmp_path_factory, conformance) -> Cli:
    folder = conformance / "dl19-passage"
    irw = Cli(tmp_path_factory.mktemp("dl19") / "irw.duckdb")
    assert irw("ingest", "qrels", folder / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    result = irw("ingest", "run", folder / "runs" / "run.dl19.BM25.txt", "--name", "BM25")
    assert result.exit_code == 0, result.stderr
    return irw


# -- 1. -m all_trec is the set of the --compat version -----------------------------------------------
@pytest.mark.parametrize("version", [9, 10])
def test_all_trec_prints_the_measures_of_its_trec_eval_version(dl19, conformance, version):
    """Under --compat 10, irw eval -m all_trec left out rbp, rbp_resid and unj_5/10/20 (220 lines of
    trec_eval 10.0's output), which irw trec-eval --compat 10 prints."""
    result = dl19("eval", "BM25", "-q", "-m", "all_trec", "-f", "trec", "--compat", str(version))
    assert result.exit_code == 0, result.stderr
    expected = conformance / "dl19-passage" / f"expected_run.dl19.BM25.all_trec.q.v{version}.txt"
    assert eval_lines(result.stdout) == eval_lines(expected.read_text())
    # in trec_eval's order too: the per-query lines, then the summary opening with runid (a walk:
    # irw eval printed runid first, above the per-query lines), the run's stored name for its tag
    in_order = [line.replace("\trank", "\tBM25") if line.startswith("runid ") else line
                for line in expected.read_text().splitlines() if not line.startswith("relstring ")]
    assert result.stdout.splitlines() == in_order
    v10_only = [line for line in result.stdout.splitlines() if line.startswith(("rbp ", "rbp_resid ", "unj_"))]
    assert len(v10_only) == (220 if version == 10 else 0)


# -- 2. NaN prints as trec_eval prints it --------------------------------------------------------------
def test_eval_prints_nan_as_trec_eval_does(tmp_path, conformance):
    """-M 10 -J empties query 846 of the news run: trec_eval prints its 0/0 as `  -nan`, irw eval
    -f trec printed `   nan`."""
    folder = conformance / "multi-collection"
    irw = Cli(tmp_path / "irw.duckdb")
    assert irw("ingest", "qrels", folder / "qrels" / "qrels.beir-v1.0.0-trec-news.test.txt",
               "--name", "news").exit_code == 0
    assert irw("ingest", "run", folder / "runs" / "SPLADE_P_P_ENSEMBLE_DISTIL" / "trec_results_news.txt",
               "--name", "splade").exit_code == 0
    result = irw("eval", "splade", "-q", "-m", "all_trec", "-f", "trec", "-M", "10", "-J")
    assert result.exit_code == 0, result.stderr
    expected = (folder / "expected" / "news.SPLADE_P_P_ENSEMBLE_DISTIL.all_trec.M10.J.q.v9.txt").read_text()
    assert [line for line in result.stdout.splitlines() if "nan" in line] == \
        [line for line in expected.splitlines() if "nan" in line]
    assert eval_lines(result.stdout) == eval_lines(expected)


def test_one_rule_prints_nan():
    """irw eval -f trec and irw trec-eval write a NaN through the one formatting function."""
    assert trec_line("11pt_avg", "846", math.nan) == "11pt_avg              \t846\t  -nan\n"
    measure = parse("iprec_at_recall.0")[0]
    assert trec_eval._format(measure, "846", math.nan) == trec_line(measure.trec_name, "846", math.nan)
    assert not hasattr(trec_eval, "NAN")  # no copy of the rule of its own


# -- 3. -q -c: a query the run lacks ------------------------------------------------------------------
@pytest.fixture
def trunc(tmp_path, conformance) -> Cli:
    """trec_eval's test qrels (queries 301, 302, 303) and results.trunc (no line of query 302)."""
    folder = conformance / "trec_eval_test"
    run = tmp_path / "trunc.txt"
    run.write_text("".join("\t".join(line.split()[:6]) + "\n" for line in (folder / "results.trunc").read_text()
                           .splitlines() if line.strip()))
    irw = Cli(tmp_path / "irw.duckdb")
    assert irw("ingest", "qrels", folder / "qrels.test", "--name", "test").exit_code == 0
    assert irw("ingest", "run", run, "--name", "trunc").exit_code == 0
    return irw


@pytest.mark.parametrize("version, expected", [(9, "out.test.aqc.v9"), (10, "out.test.aqc")])
def test_complete_prints_a_missing_query_as_its_trec_eval_version_does(trunc, conformance, version, expected):
    """trec_eval 9.0.8 -q -c prints no line for query 302, which the run lacks (10.0 prints its
    zeros); irw eval -q -c -f trec printed them under --compat 9."""
    result = trunc("eval", "trunc", "-q", "-c", "-m", "all_trec", "-f", "trec", "--compat", str(version))
    assert result.exit_code == 0, result.stderr
    assert eval_lines(result.stdout) == eval_lines((conformance / "trec_eval_test" / expected).read_text())


@pytest.mark.parametrize("version, queries", [(9, ["301", "303"]), (10, ["301", "302", "303"])])
def test_complete_rows_are_the_same_in_every_format(trunc, version, queries):
    """The table, csv and json show the per-query rows -f trec prints: one rule for every format."""
    args = ["eval", "trunc", "-q", "-c", "-m", "AP", "-m", "P@10", "--compat", str(version)]
    rows = list(csv.DictReader(io.StringIO(trunc(*args, "-f", "csv").stdout)))
    assert [r["query"] for r in rows] == queries
    trec = trunc(*args, "-f", "trec").stdout.splitlines()
    assert sorted({line.split("\t")[1] for line in trec} - {"all"}) == queries
    summary = list(csv.DictReader(io.StringIO(trunc(*(a for a in args if a != "-q"), "-f", "csv").stdout)))
    assert summary[0]["queries"] == "3"  # the mean is over every qrels query either way


# -- 4. history follows one measure --------------------------------------------------------------------
@pytest.mark.parametrize("given, named", [
    (["ndcg_cut.5,10"], "2 were given (nDCG@5, nDCG@10 from -m ndcg_cut.5,10): name one (-m nDCG@5)"),
    (["all_trec"], "were given (NumQ, NumRet, NumRel and "),
    (["nDCG@10", "AP"], "2 were given (nDCG@10, AP): name one (-m nDCG@10)"),
])
def test_history_refuses_a_name_of_several_measures(dl19, given, named):
    """-m ndcg_cut.5,10 followed nDCG@5 and -m all_trec NumQ, where -m nDCG@10 -m AP was refused."""
    result = dl19("report", "history", *(a for m in given for a in ("-m", m)), "-f", "csv")
    assert result.exit_code == 2 and result.stdout == ""
    assert "Error: the history follows one measure, and " in result.stderr and named in result.stderr


def test_history_takes_a_trec_eval_name_of_one_measure(dl19):
    result = dl19("report", "history", "-m", "ndcg_cut.10", "-f", "csv")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0].split(",")[3] == "nDCG@10"


# -- 5. cutoffs are whole numbers ----------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["P@1.5", "nDCG@10.9", "R@99.9", "P(cutoff=2.5)", "AP@5.5", "P@-1.5"])
def test_a_fractional_cutoff_is_refused(spec):
    """P@1.5 was P@1, nDCG@10.9 nDCG@10, R@99.9 R@99."""
    with pytest.raises(MeasureError, match=r"must be a whole number"):
        parse(spec)


def test_a_negative_cutoff_is_said_as_zero_is():
    """P@-1 was an unknown measure, where P@0 says what a cutoff must be."""
    with pytest.raises(MeasureError, match=r"P@-1: cutoff '-1' must be at least 1"):
        parse("P@-1")
    with pytest.raises(MeasureError, match=r"P@0: cutoff '0' must be at least 1"):
        parse("P@0")


@pytest.mark.parametrize("spec, names", [
    ("P.5", ["P@5"]), ("P.5,10", ["P@5", "P@10"]), ("ndcg_cut.23.4", ["nDCG@23"]),  # trec_eval's atol
    ("set_F.0.5", ["SetF(beta=0.5)"]), ("rbp.0.8", ["rbp_0.8"]), ("rbp.p=0.8", ["rbp_p=0.8"]),
    ("iprec_at_recall.0.25", ["IPrec@0.25"]), ("IPrec@0.5", ["IPrec@0.5"]), ("SetF(beta=0.5)", ["SetF(beta=0.5)"]),
    ("P@10", ["P@10"]),
])
def test_trec_eval_parameters_keep_their_numbers(spec, names):
    assert [m.name for m in parse(spec)] == names


def test_eval_refuses_a_fractional_cutoff(dl19):
    result = dl19("eval", "BM25", "-m", "P@1.5")
    assert result.exit_code != 0 and "cutoff '1.5' must be a whole number" in result.stderr


# -- 6. each report takes the formats it writes --------------------------------------------------------
def _format_choices(*argv: str) -> list[str]:
    command = typer.main.get_command(cli.app)
    for name in argv:
        command = command.commands[name]
    (option,) = [p for p in command.params if "--format" in p.opts]
    return list(option.type.choices)  # what --help lists and the parser takes (no default: -o's name may choose)


@pytest.mark.parametrize("report", ["run", "compare", "history"])
def test_a_report_without_a_paper_table_lists_no_paper_format(report):
    """--help listed latex|markdown, which these commands always refused."""
    assert _format_choices("report", report) == ["html", *cli.TABLE_FORMATS]


def test_the_leaderboard_keeps_its_paper_formats():
    assert _format_choices("report", "leaderboard") == ["html", *cli.TABLE_FORMATS, *cli.PAPER_FORMATS]


def test_a_paper_format_is_refused_as_a_choice(dl19):
    result = dl19("report", "history", "-f", "markdown")
    assert result.exit_code == 2 and "markdown" in result.stderr
