"""One warehouse, several collections (issue 23, items 1 and 2): `irw runs` says which stored qrels
sets judge each run; `--qrels X` alone takes the runs X judges and says on stderr how many were
left out; eval, compare, the reports and the paper tables choose runs by name, shell-style pattern
and --system, through one library function (catalog.select_runs) the Python API shares.

The data: ../shared/conformance/multi-collection, three systems x four collections (DL 2021,
DL 2022, TREC-COVID, TREC-News), qrels for all but DL 2022, and trec_eval 9.0.8's outputs. Every
run is ingested with an explicit name, SYSTEM.collection. The same checks run on DuckDB and on a
real PostgreSQL (marked `postgres`).
"""
from __future__ import annotations

import csv
import fnmatch
import io
import json
import re
from pathlib import Path

import pytest

import warehouse
from docs_pages import between
from conftest import Cli, fresh_postgres_database
from warehouse.store import catalog
from warehouse import reports
from warehouse.errors import MeasureError, NotFoundError, UsageError

SYSTEMS = ("BM25", "BM25_RM3", "SPLADE_P_P_ENSEMBLE_DISTIL")
COLLECTIONS = ("dl21", "dl22", "covid", "news")
JUDGED = ("dl21", "covid", "news")  # dl22 has no qrels here
QRELS = {"dl21": "qrels.dl21-passage.txt", "covid": "qrels.beir-v1.0.0-trec-covid.test.txt",
         "news": "qrels.beir-v1.0.0-trec-news.test.txt"}
QUERIES = {"dl21": 53, "dl22": 76, "covid": 50, "news": 57}  # each run answers every query of its collection
NAMES = [f"{s}.{c}" for s in SYSTEMS for c in COLLECTIONS]  # in ingest order
TREC_MEASURES = {"map": "AP", "ndcg_cut_10": "nDCG@10", "P_10": "P@10"}


@pytest.fixture(scope="module")
def data(multi_collection) -> Path:
    return multi_collection


def expected(data: Path, collection: str, system: str) -> dict[str, str]:
    """trec_eval's summary ("all") lines of map, ndcg_cut_10 and P_10 for a run."""
    out = {}
    for line in (data / "expected" / f"{collection}.{system}.all_trec.q.v9.txt").read_text().splitlines():
        measure, query, value = line.split()
        if query == "all" and measure in TREC_MEASURES:
            out[measure] = value
    return out


def build(irw: Cli, data: Path) -> None:
    for collection, file in QRELS.items():
        result = irw("ingest", "qrels", data / "qrels" / file, "--name", collection)
        assert result.exit_code == 0, result.stderr
    for system in SYSTEMS:
        for collection in COLLECTIONS:
            result = irw("ingest", "run", data / "runs" / system / f"trec_results_{collection}.txt",
                         "--name", f"{system}.{collection}", "--system", system)
            assert result.exit_code == 0, result.stderr


@pytest.fixture(scope="module", params=["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def mc(request, data, tmp_path_factory):
    """The warehouse of the twelve runs, on DuckDB or on PostgreSQL; yields the Cli over it."""
    if request.param == "duckdb":
        irw = Cli(tmp_path_factory.mktemp("collections") / "irw.duckdb")
        build(irw, data)
        yield irw
        return
    server = request.getfixturevalue("postgres_server")
    with fresh_postgres_database(server) as url:
        irw = Cli(url)
        build(irw, data)
        yield irw


def left_out_note(count: int, what: str, qrels: str) -> str:
    return f"# {count} {what} run{'' if count == 1 else 's'} left out: no query judged in qrels {qrels}\n"


def runs_of(collection: str) -> list[str]:
    return [f"{s}.{collection}" for s in SYSTEMS]


# -- irw runs: which qrels sets judge each run ---------------------------------------------------------

def test_runs_lists_the_qrels_sets_that_judge_each_run(mc):
    listed = json.loads(mc("runs", "--format", "json").stdout)
    assert [r["name"] for r in listed] == NAMES
    assert {r["name"]: r["judged_by"] for r in listed} == {
        f"{s}.{c}": (f"{c} {QUERIES[c]}/{QUERIES[c]}" if c in JUDGED else None) for s in SYSTEMS for c in COLLECTIONS}
    table = mc("runs")
    assert table.exit_code == 0
    header, _rule, *lines = table.stdout.splitlines()
    assert header.split()[-3:] == ["description", "parameters", "judged_by"]
    by_name = {line.split()[0]: line for line in lines}
    assert by_name["BM25.covid"].endswith("  covid 50/50")
    assert "/" not in by_name["BM25.dl22"]  # no stored set judges DL 2022: judged_by is empty
    rows = list(csv.DictReader(io.StringIO(mc("runs", "--format", "csv").stdout)))
    assert {r["name"]: r["judged_by"] for r in rows}["SPLADE_P_P_ENSEMBLE_DISTIL.news"] == "news 57/57"


def test_runs_lists_the_runs_chosen_as_eval_chooses_them(mc):
    """`irw runs --qrels covid`, `--system`, names and patterns list the runs eval would take, with
    the same note on stderr (it took no argument: "No such option: --qrels")."""
    judged = mc("runs", "--qrels", "covid", "--format", "json")
    assert judged.exit_code == 0, judged.stderr
    assert [r["name"] for r in json.loads(judged.stdout)] == runs_of("covid")
    assert judged.stderr == left_out_note(9, "stored", "covid")
    assert [r["name"] for r in json.loads(mc("runs", "--system", "BM25_RM3", "--format", "json").stdout)] == \
        [f"BM25_RM3.{c}" for c in COLLECTIONS]
    chosen = mc("runs", "SPLADE*", "BM25.dl22", "--qrels", "news", "--format", "csv")
    assert [r["name"] for r in csv.DictReader(io.StringIO(chosen.stdout))] == \
        ["BM25.dl22", "SPLADE_P_P_ENSEMBLE_DISTIL.news"]  # the listing's order; a run named outright is kept
    assert chosen.stderr == left_out_note(3, "matching", "news") + (
        "# run BM25.dl22 is listed as it was named, but qrels news judges none of its queries (its judged_by says "
        "which sets do)\n")
    for argv, says in ((["nothing*"], "no stored run matches 'nothing*'"), (["--qrels", "dl22"], "no qrels set named"),
                       (["--system", "BM25.dl21"], "no stored run is of system 'BM25.dl21'")):
        refused = mc("runs", *argv)
        assert refused.exit_code == 1 and says in refused.stderr and refused.stdout == "", (argv, refused.stderr)


def test_judged_by_counts_part_of_a_run_and_every_set(tmp_path):
    """A run judged by two sets lists both, most judged first; a partial one says how many."""
    irw = Cli(tmp_path / "irw.duckdb")
    (tmp_path / "a.txt").write_text("q1 0 d1 1\nq2 0 d1 1\nq3 0 d1 0\n")
    (tmp_path / "b.txt").write_text("q3 0 d1 1\n")
    (tmp_path / "run.txt").write_text("".join(f"q{i} Q0 d1 1 1.0 r\n" for i in range(1, 5)))
    irw("ingest", "qrels", tmp_path / "a.txt", "--name", "zeta")
    irw("ingest", "qrels", tmp_path / "b.txt", "--name", "alpha")
    irw("ingest", "run", tmp_path / "run.txt", "--name", "r")
    (row,) = json.loads(irw("runs", "--format", "json").stdout)
    assert row["judged_by"] == "zeta 3/4, alpha 1/4"


def test_a_stored_name_holding_pattern_characters_is_that_run(tmp_path):
    """`run[1]` names the run stored as run[1] (not run1, which the pattern would match); a name
    that is no stored run's is a pattern; --system intersects, and an empty result says why."""
    irw = Cli(tmp_path / "irw.duckdb")
    (tmp_path / "q.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 1.0 r\n")
    irw("ingest", "qrels", tmp_path / "q.txt", "--name", "q")
    for name, system in (("run[1]", "x"), ("run1", "y"), ("run2", "y")):
        assert irw("ingest", "run", tmp_path / "run.txt", "--name", name, "--system", system).exit_code == 0
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        assert list(wh.select_runs("run[1]")) == ["run[1]"]
        assert list(wh.select_runs("run[12]")) == ["run1", "run2"]
        assert list(wh.select_runs(["run?", "run[1]"], systems="y")) == ["run1", "run2"]
        with pytest.raises(NotFoundError, match="none of the runs named or matched is of system x"):
            wh.select_runs("run?", systems="x")
    result = irw("eval", "-m", "AP", "--format", "json", "run[1]", "run2")
    assert [r["run"] for r in json.loads(result.stdout)] == ["run[1]", "run2"]


# -- --qrels X alone: the runs X judges, and a note of those left out ----------------------------------

def trec_blocks(stdout: str) -> dict[str, dict[str, str]]:
    """run -> {measure: value} from `irw eval --format trec` (trec_eval's summary lines)."""
    out: dict[str, dict[str, str]] = {}
    run = None
    for line in stdout.splitlines():
        measure, query, value = line.split()
        assert query == "all"
        if measure == "runid":
            run = value
            out[run] = {}
        else:
            out[run][measure] = value
    return out


@pytest.mark.parametrize("collection", JUDGED)
def test_eval_with_qrels_alone_takes_the_runs_it_judges_with_trec_evals_numbers(mc, data, collection):
    result = mc("eval", "--qrels", collection, "-m", "map", "-m", "ndcg_cut_10", "-m", "P_10", "--format", "trec")
    assert result.exit_code == 0, result.stderr
    assert left_out_note(9, "stored", collection) in result.stderr
    blocks = trec_blocks(result.stdout)
    assert list(blocks) == runs_of(collection)
    for system in SYSTEMS:
        assert blocks[f"{system}.{collection}"] == expected(data, collection, system)


def test_eval_format_trec_never_prints_two_measures_under_one_name(mc, data):
    """`-m P_10 -m 'P(rel=2)@10'` printed two P_10 lines, and set_F.0.5 printed as set_F beside set_F:
    a measure at a level of its own has rel_N in its name (as ties=min has ties_min), set_F's beta
    is in its name as trec_eval prints `-m set_F.0.5`; the values are trec_eval's at each level."""
    result = mc("eval", "--qrels", "dl21", "-m", "P_10", "-m", "P(rel=2)@10", "-m", "map", "-m", "AP(rel=2)",
                "-m", "set_F", "-m", "set_F.0.5", "--format", "trec", "BM25.dl21")
    assert result.exit_code == 0, result.stderr
    names = [line.split("\t")[0].strip() for line in result.stdout.splitlines()]
    assert names == ["runid", "P_10", "P_rel_2_10", "map", "map_rel_2", "set_F", "set_F_0.5"]
    values = trec_blocks(result.stdout)["BM25.dl21"]
    at_1, at_2 = ({line.split()[0]: line.split()[2] for line in (
        data / "expected" / f"dl21.BM25.all_trec.q{suffix}.v9.txt").read_text().splitlines() if line.split()[1] == "all"}
        for suffix in ("", ".l2"))
    assert (values["P_10"], values["map"], values["set_F"]) == (at_1["P_10"], at_1["map"], at_1["set_F"])
    assert (values["P_rel_2_10"], values["map_rel_2"]) == (at_2["P_10"], at_2["map"])
    assert at_1["P_10"] != at_2["P_10"]


def test_eval_table_values_equal_trec_eval(mc, data):
    result = mc("eval", "--qrels", "news", "-m", "AP", "-m", "nDCG@10", "-m", "P@10", "--format", "json")
    assert result.exit_code == 0, result.stderr
    rows = {r["run"]: r for r in json.loads(result.stdout)}
    assert set(rows) == set(runs_of("news"))
    for system in SYSTEMS:
        want = expected(data, "news", system)
        got = rows[f"{system}.news"]
        assert {m: f"{got[name]:.4f}" for m, name in TREC_MEASURES.items()} == want


def test_nothing_left_out_prints_no_note(mc):
    result = mc("eval", "--qrels", "covid", "-m", "AP", "BM25.covid", "BM25_RM3.covid")
    assert result.exit_code == 0, result.stderr
    assert "left out" not in result.stderr


def test_compare_with_qrels_alone(mc, data):
    result = mc("compare", "--qrels", "covid", "-m", "AP", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert left_out_note(9, "stored", "covid") in result.stderr
    # the note follows the line that names the qrels set
    assert result.stderr.splitlines()[1] == left_out_note(9, "stored", "covid").strip()
    rows = json.loads(result.stdout)
    assert {(r["run"], r["baseline"]) for r in rows} == {
        ("BM25_RM3.covid", "BM25.covid"), ("SPLADE_P_P_ENSEMBLE_DISTIL.covid", "BM25.covid"),
        ("SPLADE_P_P_ENSEMBLE_DISTIL.covid", "BM25_RM3.covid")}
    means = {r["run"]: r["run_mean"] for r in rows} | {r["baseline"]: r["baseline_mean"] for r in rows}
    for system in SYSTEMS:
        assert f"{means[f'{system}.covid']:.4f}" == expected(data, "covid", system)["map"]


def test_leaderboard_with_qrels_alone(mc, data, tmp_path):
    result = mc("report", "leaderboard", "--qrels", "dl21", "-m", "AP", "-m", "nDCG@10", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert left_out_note(9, "stored", "dl21") in result.stderr
    board = json.loads(result.stdout)
    assert [r["run"] for r in board] == ["SPLADE_P_P_ENSEMBLE_DISTIL.dl21", "BM25_RM3.dl21", "BM25.dl21"]
    assert [r["rank"] for r in board] == [1, 2, 3]
    for row in board:
        want = expected(data, "dl21", row["system"])
        assert (f"{row['AP']:.4f}", f"{row['nDCG@10']:.4f}") == (want["map"], want["ndcg_cut_10"])
    page = tmp_path / "dl21.html"
    written = mc("report", "leaderboard", "--qrels", "dl21", "-o", page, "--no-run-pages")
    assert written.exit_code == 0, written.stderr
    assert left_out_note(9, "stored", "dl21") in written.stderr
    html = page.read_text()
    assert "BM25_RM3.dl21" in html and "BM25.covid" not in html


def test_history_with_qrels_alone(mc, data, tmp_path):
    result = mc("report", "history", "--qrels", "news", "-m", "AP", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert left_out_note(9, "stored", "news") in result.stderr
    rows = json.loads(result.stdout)
    assert {r["run"]: f"{r['AP']:.4f}" for r in rows} == {
        f"{s}.news": expected(data, "news", s)["map"] for s in SYSTEMS}
    page = tmp_path / "history.html"
    written = mc("report", "history", "--qrels", "news", "-o", page)
    assert written.exit_code == 0, written.stderr
    assert left_out_note(9, "stored", "news") in written.stderr
    assert "BM25.news" in page.read_text() and "BM25.dl21" not in page.read_text()


@pytest.mark.parametrize("command", [("compare",), ("report", "leaderboard")])
@pytest.mark.parametrize("fmt", ["latex", "markdown"])
def test_paper_tables_with_qrels_alone(mc, command, fmt):
    result = mc(*command, "--qrels", "covid", "-m", "AP", "--format", fmt)
    assert result.exit_code == 0, result.stderr
    assert left_out_note(9, "stored", "covid") in result.stderr
    plain = result.stdout.replace("\\_", "_")
    assert all(run in plain for run in runs_of("covid"))
    assert not any(run in plain for c in ("dl21", "dl22", "news") for run in runs_of(c))


def test_report_compare_takes_a_pattern(mc, tmp_path):
    result = mc("report", "compare", "*.covid", "--qrels", "covid", "-m", "AP", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert "left out" not in result.stderr  # the pattern chose only runs covid judges
    assert {r["run"] for r in json.loads(result.stdout)} | {r["baseline"] for r in json.loads(result.stdout)} == \
        set(runs_of("covid"))
    result = mc("report", "compare", "BM25*", "--qrels", "covid", "-m", "AP", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert left_out_note(6, "matching", "covid") in result.stderr


# -- names, patterns, --system ---------------------------------------------------------------------------

def evaluated(result) -> list[str]:
    assert result.exit_code == 0, result.stderr
    return [r["run"] for r in json.loads(result.stdout)]


def test_patterns_and_systems_choose_runs(mc):
    eval_ = ("eval", "-m", "AP", "--format", "json")
    result = mc(*eval_, "--qrels", "covid", "BM25*")
    assert evaluated(result) == ["BM25.covid", "BM25_RM3.covid"]  # BM25* matches BM25_RM3's runs too
    assert left_out_note(6, "matching", "covid") in result.stderr
    result = mc(*eval_, "--qrels", "covid", "--system", "BM25")
    assert evaluated(result) == ["BM25.covid"]
    assert left_out_note(3, "matching", "covid") in result.stderr
    # names and patterns united, in the order given; then --system intersects
    result = mc(*eval_, "--qrels", "dl21", "SPLADE*", "BM25.dl21", "--system", "SPLADE_P_P_ENSEMBLE_DISTIL",
                "--system", "BM25")
    assert evaluated(result) == ["SPLADE_P_P_ENSEMBLE_DISTIL.dl21", "BM25.dl21"]
    assert evaluated(mc(*eval_, "--qrels", "news", "BM25?RM3.*", "S*.news")) == ["BM25_RM3.news",
                                                                                "SPLADE_P_P_ENSEMBLE_DISTIL.news"]
    board = json.loads(mc("report", "leaderboard", "--qrels", "news", "-m", "AP", "--format", "json",
                          "*RM3*", "*.news", "--system", "BM25_RM3").stdout)
    assert [r["run"] for r in board] == ["BM25_RM3.news"]
    history = json.loads(mc("report", "history", "--qrels", "covid", "--format", "json", "--system", "BM25",
                            "--system", "SPLADE_P_P_ENSEMBLE_DISTIL").stdout)
    assert [r["run"] for r in history] == ["BM25.covid", "SPLADE_P_P_ENSEMBLE_DISTIL.covid"]
    compared = json.loads(mc("compare", "--qrels", "dl21", "-m", "AP", "--format", "json", "--system", "BM25",
                             "--system", "BM25_RM3").stdout)
    assert [(r["run"], r["baseline"]) for r in compared] == [("BM25_RM3.dl21", "BM25.dl21")]


def test_a_pattern_or_system_that_matches_nothing_is_an_error_saying_what_is_stored(mc):
    for args in (("bm25*",), ("XYZ*",), ("*.dl23",)):
        result = mc("eval", "--qrels", "covid", "-m", "AP", *args)
        assert result.exit_code == 1 and result.stdout == ""
        assert f"Error: no stored run matches {args[0]!r}" in result.stderr
        assert "12 stored runs: BM25.dl21, BM25.dl22" in result.stderr
    result = mc("report", "history", "--qrels", "covid", "--format", "json", "--system", "bm25")
    assert result.exit_code == 1
    assert ("Error: no stored run is of system 'bm25'; 3 stored systems: BM25, BM25_RM3, "
            "SPLADE_P_P_ENSEMBLE_DISTIL") in result.stderr
    result = mc("report", "leaderboard", "--qrels", "covid", "--format", "json", "nope")
    assert result.exit_code == 1 and "Error: no run named 'nope'; `irw runs` lists the stored runs" in result.stderr
    result = mc("eval", "--qrels", "covid", "-m", "AP", "*.dl22")  # runs, none of them judged
    assert result.exit_code == 1
    assert "Error: no matching run has a query judged in qrels covid (3 runs: BM25.dl22" in result.stderr


@pytest.mark.parametrize("command", [("eval", "-m", "AP"), ("compare", "-m", "AP", "BM25.covid"),
                                     ("report", "leaderboard", "-m", "AP", "--format", "json"),
                                     ("report", "history", "--format", "json")])
def test_naming_a_run_the_qrels_do_not_judge_stays_an_error(mc, command):
    before = mc("sql", "select count(*) as n from scores", "--format", "json").stdout
    result = mc(*command, "BM25.dl21", "--qrels", "covid")
    assert result.exit_code == 1 and result.stdout == ""
    assert "run BM25.dl21 has no query judged in qrels covid" in result.stderr
    assert mc("sql", "select count(*) as n from scores", "--format", "json").stdout == before


@pytest.mark.parametrize("pattern", ["*", "BM25*", "BM25?RM3*", "*.[cd]*", "*.[!d]*", "*[.]news", "*.dl2?",
                                     "[BS]*[!0-9]", "*_*_*", "*.d[l-m]2[1]", "BM25[_.]*"])
def test_patterns_match_as_fnmatch_does(mc, pattern):
    with warehouse.open(mc.db, read_only=True) as wh:
        chosen = list(wh.select_runs([pattern]))
    assert chosen == [name for name in NAMES if fnmatch.fnmatchcase(name, pattern)]


def test_regex_of_special_characters_matches_them_literally():
    names = ["a.b", "axb", "a+b", "a(b)", "a$", "a^b", "a|b", "a\\b", "a[b", "a]b", "a{1}"]
    for pattern in ["a.b", "a+b", "a(b)", "a$", "a^b", "a|b", "a\\b", "a[[]b", "a[]]b", "a{1}", "a[", "a[\\]b",
                    "a[!.]b", "a[^]b"]:
        regex = re.compile(catalog.glob_regex(pattern), re.S)
        assert [n for n in names if regex.search(n)] == [n for n in names if fnmatch.fnmatchcase(n, pattern)], pattern


# -- the Python API takes the same selection --------------------------------------------------------------

def test_python_api_selection(mc, data):
    with warehouse.open(mc.db) as wh:
        evaluation = wh.evaluate(None, "covid", ["AP"])
        assert [r[0] for r in evaluation.summary.rows] == runs_of("covid")
        assert len(evaluation.selection.left_out) == 9
        assert evaluation.selection.notes() == [left_out_note(9, "stored", "covid")[2:].strip()]
        assert f"{evaluation.value('BM25.covid', 'AP'):.4f}" == expected(data, "covid", "BM25")["map"]
        evaluation = wh.evaluate("SPLADE*", "news", "AP", systems="SPLADE_P_P_ENSEMBLE_DISTIL")
        assert [r[0] for r in evaluation.summary.rows] == ["SPLADE_P_P_ENSEMBLE_DISTIL.news"]
        comparison = wh.compare(qrels="news", measures="AP", systems=["BM25", "BM25_RM3"])
        assert comparison.pairs == [("BM25_RM3.news", "BM25.news")]
        board = reports.leaderboard(wh, "dl21", ["AP"], runs=["*"], systems=["BM25", "BM25_RM3"])
        assert [row.run for row in board.rows] == ["BM25_RM3.dl21", "BM25.dl21"]
        assert len(board.selection.left_out) == 6
        page = reports.history(wh, "covid", "AP", runs="*.covid")
        assert [r.run for s in page.systems for r in s.runs] == runs_of("covid")
        selection = wh.select_runs(qrels="dl21")
        assert list(selection) == runs_of("dl21") and selection.every
        with pytest.raises(MeasureError, match="run BM25.dl22 has no query judged in qrels dl21"):
            wh.evaluate(["BM25.dl22"], "dl21", "AP")
        with pytest.raises(NotFoundError, match="no stored run matches"):
            wh.select_runs("nothing*")
        with pytest.raises(UsageError, match="name at least one run"):  # an empty list is not "every run"
            wh.evaluate([], "covid", "AP")


# -- the README's example, run as printed ------------------------------------------------------------------



def readme_commands() -> list[tuple[str, list[str]]]:
    """(command, printed lines) of each `$ irw` line in the README's choosing-runs block."""
    block = between("<!-- choosing-runs:start -->\n", "<!-- choosing-runs:end -->")  # docs/cli.md
    found: list[tuple[str, list[str]]] = []
    for line in block.strip("`\n").splitlines():
        if line.startswith("$ "):
            found.append((line[2:], []))
        elif found and line.strip():
            found[-1][1].append(line)
    return found


def test_the_readme_example_runs_as_printed(mc, tmp_path):
    import os
    import subprocess
    import sys

    steps = readme_commands()
    assert [command.split()[:3] for command, _ in steps] == [["irw", "eval", "--qrels"],
                                                             ["irw", "report", "leaderboard"]]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "IRW_DB": str(mc.db)}
    for command, printed in steps:
        result = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                                timeout=600)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines() == [line for line in printed if not line.startswith("# ")]
        for note in (line for line in printed if line.startswith("# ") and "..." not in line):
            assert note in result.stderr.splitlines()
    assert "BM25_RM3.news" in (tmp_path / "news.html").read_text()


# -- irw ingest qrels of several files -----------------------------------------------------------------

@pytest.fixture(params=["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty(request, tmp_path):
    """A Cli over a new warehouse: a DuckDB file, or a fresh PostgreSQL database."""
    if request.param == "duckdb":
        yield Cli(tmp_path / "irw.duckdb")
        return
    with fresh_postgres_database(request.getfixturevalue("postgres_server")) as url:
        yield Cli(url)


def test_a_folder_of_qrels_files_is_ingested_one_set_per_file(empty, data, tmp_path):
    """`irw ingest qrels qrels/` refused the folder ("is a directory, not a file") and two files
    ("unexpected extra argument"): each file is now a set named by its file; the batch is checked
    whole first, so a bad file or two files of one name store nothing."""
    irw = empty
    result = irw("ingest", "qrels", data / "qrels")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[-1] == "3 files: 3 ingested"  # the closing count, as runs have
    sets = {s["name"]: s for s in json.loads(irw("qrels", "--format", "json").stdout)}
    lines = {f"qrels.{QRELS[c][len('qrels.'):-len('.txt')]}": sum(1 for _ in (data / "qrels" / QRELS[c]).open())
             for c in JUDGED}
    assert {name: s["judgments"] for name, s in sets.items()} == lines
    assert sorted(s["queries"] for s in sets.values()) == sorted(QUERIES[c] for c in JUDGED)
    again = irw("ingest", "qrels", data / "qrels" / QRELS["dl21"], data / "qrels")  # a file given twice is one
    assert again.exit_code == 0 and again.stderr.count("nothing to do") == 3, again.stderr
    assert again.stderr.splitlines()[-1] == "3 files: 3 unchanged"
    assert irw("ingest", "qrels", data / "qrels", "--name", "x").exit_code == 2
    # the same judgments under another name: stored as asked, and said (they once went in unsaid)
    copy = irw("ingest", "qrels", data / "qrels" / QRELS["dl21"], "--name", "dl21-copy")
    assert copy.exit_code == 0
    assert copy.stderr.splitlines()[0] == (f"{data / 'qrels' / QRELS['dl21']}: the same bytes are stored as qrels set "
                                           "qrels.dl21-passage too")
    assert irw("rm", "qrels", "dl21-copy").exit_code == 0

    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "qrels.dl21-passage.txt").write_bytes((data / "qrels" / QRELS["dl21"]).read_bytes())
    (bad / "qrels.typo.txt").write_text("q1 0 d1 1\nq1 0 d2 x\n")
    other = Cli(tmp_path / "other.duckdb") if isinstance(irw.db, Path) else irw
    before = other("qrels", "--format", "json").stdout if other is irw else None
    result = other("ingest", "qrels", bad, data / "qrels" / QRELS["dl21"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"Error: {bad / 'qrels.typo.txt'}:2: grade x is not an integer",
        f"Error: {data / 'qrels' / QRELS['dl21']}: would be qrels set qrels.dl21-passage, as would "
        f"{bad / 'qrels.dl21-passage.txt'}; ingest such files one at a time, each with --name",
        "Error: nothing was stored: 2 of 3 files cannot be ingested as they are; fix the files named above, or leave them out, and run the command again"]
    if before is None:
        assert not (tmp_path / "other.duckdb").exists()
    else:
        assert other("qrels", "--format", "json").stdout == before
