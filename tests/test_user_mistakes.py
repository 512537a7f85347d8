"""A user's mistake gets a message that says what to do (found by walking irw as a user): a run or
qrels name typed in another letter case is pointed to, and the Python API takes what the CLI
takes, or says why not, instead of a bare ValueError."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

import warehouse
from warehouse.commands.irw import app
from warehouse.errors import NotFoundError, UsageError

from conftest import RUN_ROWS, Cli, dl19_cli, run_text, write_file


@pytest.fixture
def dl19(tmp_path, conformance) -> Cli:
    return dl19_cli(conformance, tmp_path, ("BM25", "REP_LLAMA"))


@pytest.mark.parametrize("argv, message", [
    (["report", "run", "bm25", "--format", "csv"], "no run named 'bm25'; did you mean BM25?"),
    (["report", "leaderboard", "--baseline", "rep_llama", "-m", "AP", "--format", "csv"],
     "no run named 'rep_llama'; did you mean REP_LLAMA?"),
    (["eval", "--qrels", "DL19", "-m", "AP"], "no qrels set named 'DL19'; did you mean dl19?"),
    (["eval", "BM25", "--qrels", "dl91", "-m", "AP"], "no qrels set named 'dl91'; did you mean dl19?"),
])
def test_a_name_in_another_letter_case_is_pointed_to(dl19, argv, message):
    result = dl19(*argv)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"Error: {message} ")


@pytest.mark.parametrize("report", [["leaderboard"], ["compare"], ["history"], ["run", "BM25"]])
@pytest.mark.parametrize("measure", ["AP(rel=x)", "P@"])
def test_a_report_s_misspelt_measure_is_said_before_anything_else(dl19, tmp_path, report, measure):
    """A walk: `irw report leaderboard --qrels news -m 'AP(rel=x)'` printed "# 9 stored runs left
    out: no query judged in qrels news" and only then the measure's error: the measures are read
    before the runs are chosen, as irw eval reads them."""
    assert dl19("ingest", "run", write_file(tmp_path, "other.txt", run_text(RUN_ROWS)), "--name", "other").exit_code == 0
    result = dl19("report", *report, "--qrels", "dl19", "-m", measure, "-o", tmp_path / "page.html")
    assert result.exit_code == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("Error: "), result.stderr
    assert not (tmp_path / "page.html").exists()


def test_eval_with_copy_s_run_option_is_told_runs_are_arguments(dl19):
    """`irw copy` names a run with --run; on `irw eval` click answered "No such option: --run
    (Possible options: --runs)", Spark's option for run files."""
    result = dl19("eval", "--qrels", "dl19", "--run", "BM25", "-m", "AP")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == ("Error: irw eval names stored runs as arguments, without --run: `irw eval -m MEASURE BM25` "
                             "(--runs is Spark's: run files, with --engine spark)\n"), result.stderr
    assert "--run " not in dl19("eval", "--help", db=False).stdout  # not an option to learn


def test_the_python_api_takes_no_qrels_when_one_is_stored_and_says_what_settings_take(dl19):
    with warehouse.open(dl19.db) as wh:
        assert wh.evaluate(["BM25"], None, ["AP"]).value("BM25", "AP") == \
            wh.evaluate(["BM25"], "dl19", ["AP"]).value("BM25", "AP")
        with pytest.raises(UsageError, match="judged_only takes True or False, not 'no'"):
            wh.evaluate(["BM25"], "dl19", ["AP"], judged_only="no")
        with pytest.raises(NotFoundError, match="no qrels set named 'DL19'; did you mean dl19?"):
            wh.evaluate(["BM25"], "DL19", ["AP"])


def test_a_refused_setting_is_named_as_the_caller_gave_it(dl19, conformance):
    """The Python API's keyword (level=), irw's option (--level), trec-eval's flag (-l): each
    caller is told of what it typed. A Python user was told of --level and --alpha, and
    `irw trec-eval -l 99999999999` of a --level it does not take."""
    with warehouse.open(dl19.db) as wh:
        with pytest.raises(UsageError, match=r"^level takes an integer from 0 to 2147483647 "):
            wh.evaluate(["BM25"], "dl19", ["AP"], level=2**40)
        with pytest.raises(UsageError, match=r"^alpha must be between 0 and 1, not 3$"):
            wh.compare(["BM25", "REP_LLAMA"], "dl19", ["AP"], alpha=3)
        with pytest.raises(UsageError, match=r"^permutations must be at least 1, not 0$"):
            wh.compare(["BM25", "REP_LLAMA"], "dl19", ["AP"], permutations=0)
    for argv, said in [(["eval", "-m", "AP", "-l", str(2**40)], "--level takes an integer from "),
                       (["eval", "-m", "AP", "--num-docs", "-1"], "--num-docs takes the number of documents "),
                       (["compare", "BM25", "REP_LLAMA", "-m", "AP", "--seed", "-1"], "--seed must be 0 or more, not -1"),
                       (["report", "history", "--alpha", "1"], "--alpha must be between 0 and 1, not 1.0")]:
        result = dl19(*argv)
        assert (result.exit_code, result.stdout) == (2, ""), result.stderr
        assert result.stderr.startswith(f"Error: {said}"), result.stderr
    folder = conformance / "dl19-passage"
    result = CliRunner().invoke(app, ["trec-eval", "-l", str(2**40), str(folder / "qrels.dl19-passage.txt"),
                                      str(folder / "runs" / "run.dl19.BM25.txt")])
    assert (result.exit_code, result.stdout) == (1, "")  # trec-eval's usage status, trec_eval's 1
    assert result.stderr.startswith("Error: -l takes an integer from 0 to 2147483647 "), result.stderr


def test_copying_chosen_runs_copies_only_the_qrels_that_judge_them(tmp_path, conformance):
    """irw copy --run X copied every qrels set of the source, and with --replace replaced a set of
    the target that X never needed (dl19 lost a query: AP 0.2993 -> 0.3009 over 42 queries)."""
    dl19 = conformance / "dl19-passage"
    multi = conformance / "multi-collection"
    one, two = Cli(tmp_path / "one.duckdb"), Cli(tmp_path / "two.duckdb")
    assert one("ingest", "qrels", dl19 / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    assert one("ingest", "run", dl19 / "runs" / "run.dl19.BM25.txt", "--name", "BM25").exit_code == 0
    fewer = tmp_path / "dl19-without-a-query.txt"
    fewer.write_text("".join(line for line in (dl19 / "qrels.dl19-passage.txt").read_text().splitlines(True)
                             if not line.startswith("1037798 ")))
    assert two("ingest", "qrels", fewer, "--name", "dl19").exit_code == 0
    assert two("ingest", "qrels", multi / "qrels" / "qrels.beir-v1.0.0-trec-covid.test.txt",
               "--name", "covid").exit_code == 0
    assert two("ingest", "run", multi / "runs" / "BM25" / "trec_results_covid.txt", "--name", "bm25-covid").exit_code == 0
    before = one("eval", "BM25", "--qrels", "dl19", "-m", "AP", "--format", "csv").stdout
    for replace in ([], ["--replace"]):
        copied = one("copy", "--from", two.db, "--to", one.db, "--run", "bm25-covid", *replace, db=False)
        assert copied.exit_code == 0, copied.stderr
        assert "qrels dl19" not in copied.stderr + copied.stdout
    assert one("eval", "BM25", "--qrels", "dl19", "-m", "AP", "--format", "csv").stdout == before
    assert one("eval", "bm25-covid", "--qrels", "covid", "-m", "AP").exit_code == 0


def test_copying_a_file_onto_itself_or_from_an_empty_warehouse_says_so(tmp_path, conformance):
    """irw copy --from w.duckdb --to w.duckdb was DuckDB's 'Can't open a connection to same database
    file with a different configuration'; a copy from an empty warehouse was a success of 0 rows
    that created the target."""
    dl19 = conformance / "dl19-passage"
    irw = Cli(tmp_path / "w.duckdb")
    assert irw("ingest", "qrels", dl19 / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    same = irw("copy", "--from", tmp_path / "w.duckdb", "--to", tmp_path / "." / "w.duckdb", db=False)
    assert same.exit_code == 2
    assert same.stderr.startswith("Error: --from and --to are the same warehouse (")
    with warehouse.open(tmp_path / "empty.duckdb"):
        pass
    empty = irw("copy", "--from", tmp_path / "empty.duckdb", "--to", tmp_path / "new.duckdb", db=False)
    assert empty.exit_code == 1
    assert empty.stderr == f"Error: {tmp_path / 'empty.duckdb'} holds no qrels set and no run: nothing to copy\n"
    assert not (tmp_path / "new.duckdb").exists()


def test_a_run_named_twice_in_copy_is_copied_once_and_said_copied(dl19, tmp_path):
    """A lifecycle walk: `irw copy --run BM25 --run BM25` into a new file said `run BM25: unchanged`
    (the second copy found the first's), though it had just been copied."""
    target = tmp_path / "copy.duckdb"
    copied = dl19("copy", "--from", dl19.db, "--to", target, "--run", "BM25", "--run", "REP_LLAMA", "--run", "BM25",
                  db=False)
    assert copied.exit_code == 0, copied.stderr
    lines = copied.stderr.splitlines()
    assert [line for line in lines if line.startswith("run ")] == ["run BM25: copied", "run REP_LLAMA: copied"]
    assert Cli(target)("runs", "-f", "csv").stdout.count("\n") == 3


def test_copy_from_a_warehouse_that_does_not_exist_says_what_from_names(tmp_path):
    """A lifecycle walk: `irw copy --from nosuch.duckdb` said to pass --db / IRW_DB, which copy has not."""
    missing = Cli(tmp_path / "unused.duckdb")("copy", "--from", tmp_path / "nosuch.duckdb", "--to", tmp_path / "new.duckdb",
                                                db=False)
    assert missing.exit_code == 1
    assert missing.stderr == (f"Error: no warehouse at {tmp_path / 'nosuch.duckdb'} to copy from: --from names a "
                              "warehouse that exists (a DuckDB file or a postgresql:// URL)\n")
    assert not (tmp_path / "new.duckdb").exists()


@pytest.mark.parametrize("argv, message", [
    (["--system", ""], "the run's --system '' is empty: give it another name"),
    (["--system", "   "], "the run's --system '   ' is only blanks: give it another name"),
    (["--system", "."], "the run's --system '.' is a dot segment, which links and paths read as this folder or the "
                        "one above: give it another name"),
    (["--system", "\udcff"], "the run's --system '\\udcff' is not UTF-8 text: give it another name"),
    (["--description", "\udcff"], "the run's --description '\\udcff' is not UTF-8 text"),
    (["--system", "{folder}"], "the run's --system '{folder}' holds { or }: ingest fills such fields from a file's "
                               "name; here give the system's name itself"),
    (["--date", "2026-02-30"], "--date '2026-02-30' is written as a date but names no day of the calendar (or no "
                               "time of day): give one that exists"),
])
def test_edit_run_refuses_what_ingest_refuses_and_changes_nothing(dl19, argv, message):
    """A lifecycle walk: `irw edit run BM25 --system ''` (and '.', blanks) was stored, a system or
    description not UTF-8 met DuckDB's own error, and `{folder}` was stored with its braces."""
    before = dl19("sql", "select system, description, file_created_at from runs order by name", "-f", "csv").stdout
    edited = dl19("edit", "run", "BM25", *argv)
    assert (edited.exit_code, edited.stderr) == (2, f"Error: {message}\n")
    assert dl19("sql", "select system, description, file_created_at from runs order by name", "-f", "csv").stdout == before


def test_ingest_refuses_a_date_that_is_no_day_of_the_calendar_saying_so(dl19, conformance):
    refused = dl19("ingest", "run", conformance / "dl19-passage" / "runs" / "run.dl19.BM25_RM3.txt", "--date",
                   "2026-02-30")
    assert refused.exit_code == 2
    assert refused.stderr == ("Error: --date '2026-02-30' is written as a date but names no day of the calendar (or "
                              "no time of day): give one that exists\n")


def test_a_param_given_twice_with_two_values_is_refused_not_the_last_kept(dl19, conformance):
    """A lifecycle walk: `--param a=1 --param a=2` stored a=2 and said nothing."""
    run = conformance / "dl19-passage" / "runs" / "run.dl19.BM25_RM3.txt"
    for argv in (["ingest", "run", run], ["edit", "run", "BM25"]):
        refused = dl19(*argv, "--param", "k1=0.9", "--param", "k1=1.2")
        assert (refused.exit_code, refused.stderr) == (
            2, "Error: --param k1 is given twice, as '0.9' and '1.2': give it once\n")
    assert dl19("runs", "-f", "csv").stdout.count("\n") == 3  # BM25_RM3 was not stored
    assert dl19("edit", "run", "BM25", "--param", "k1=0.9", "--param", "k1=0.9").exit_code == 0  # the same twice


def test_rm_run_takes_several_names_all_or_none(dl19):
    """A team's walk: `irw rm run t1A t1B` was "Got unexpected extra argument(s)"."""
    refused = dl19("rm", "run", "BM25", "REP_LLAMA", "bm25")
    assert refused.exit_code == 1 and "no run named 'bm25'; did you mean BM25?" in refused.stderr, refused.stderr
    assert dl19("runs", "-f", "csv").stdout.count("\n") == 3  # removed none
    removed = dl19("rm", "run", "BM25", "REP_LLAMA")
    assert removed.exit_code == 0 and removed.stderr == "removed run BM25\nremoved run REP_LLAMA\n", removed.stderr
    assert dl19("runs", "-f", "csv").stdout.count("\n") == 1
