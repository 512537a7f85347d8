"""Batches name runs that stay apart, and stored runs are renamed and edited in place (issue 23,
items 3 and 4).

Real data: twelve public runs, three systems x four collections, from
../shared/conformance/multi-collection (skipped where absent), in the publisher's layout (one
folder per system: BM25/trec_results_dl21.txt) and, copied here, in a user's (one folder per
collection: dl21/BM25.txt or dl21/trec_results_BM25.txt). Their tags are placeholders: `rank`
(BM25, BM25_RM3) and `run_id` (SPLADE). One command per folder, in either layout or both, on
DuckDB and PostgreSQL, stores the twelve runs under twelve names with the right systems.
"""
from __future__ import annotations

import csv
import io
import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

import warehouse
from warehouse.ingestion.batch import is_placeholder

from docs_pages import section
from conftest import RUN_ROWS, Cli, fingerprint_at, run_text, write_file

SYSTEMS = ("BM25", "BM25_RM3", "SPLADE_P_P_ENSEMBLE_DISTIL")
COLLECTIONS = ("covid", "dl21", "dl22", "news")
FILE_NAMES = {"plain": "{system}.txt", "publisher": "trec_results_{system}.txt"}


@pytest.fixture
def multi(conformance: Path) -> Path:
    return conformance / "multi-collection"


def by_collection(multi: Path, root: Path, names: str = "{system}.txt") -> Path:
    """The runs copied into one folder per collection, under the same file names in every folder."""
    for collection in COLLECTIONS:
        (root / collection).mkdir(parents=True)
        for system in SYSTEMS:
            shutil.copyfile(multi / "runs" / system / f"trec_results_{collection}.txt",
                            root / collection / names.format(system=system))
    return root


def stored_runs(db: str | Path) -> list[tuple]:
    with warehouse.open(db, read_only=True) as wh:
        return wh.sql("select name, system, tag from runs order by run_id").rows


def every_run() -> set[tuple[str, str]]:
    """(name, system) of the twelve runs as the rule names them once a collection's names are taken."""
    return {(f"{s}.{c}", s) for s in SYSTEMS for c in COLLECTIONS}


def cli_for(db: str | Path) -> Cli:
    cli = Cli(Path("unused"))
    cli.db = db
    return cli


def ingest_layouts(irw: Cli, multi: Path, collections: Path, order: str) -> list:
    """One `irw ingest run FOLDER` per folder of each layout, in the order given; every command succeeds."""
    system_folders = [multi / "runs" / s for s in SYSTEMS]
    collection_folders = [collections / c for c in COLLECTIONS]
    folders = system_folders + collection_folders if order == "systems first" else collection_folders + system_folders
    results = []
    for folder in folders:
        result = irw("ingest", "run", folder)
        assert result.exit_code == 0, (folder, result.stderr)
        results.append(result)
    return results


# -- both layouts, one command per folder -------------------------------------------------------------------

@pytest.mark.parametrize("names", FILE_NAMES.values(), ids=FILE_NAMES.keys())
@pytest.mark.parametrize("order", ["systems first", "collections first"])
def test_both_layouts_one_command_per_folder_store_twelve_runs_with_their_systems(multi, tmp_path, names, order):
    db = tmp_path / "irw.duckdb"
    results = ingest_layouts(Cli(db), multi, by_collection(multi, tmp_path / "runs", names), order)
    runs = stored_runs(db)
    assert len(runs) == 12 and len({name for name, _, _ in runs}) == 12
    if order == "systems first":  # every run named system.collection, whichever layout comes next
        assert {(name, system) for name, system, _ in runs} == every_run()
        # the folder per collection holds the same bytes: nothing to do, said per file
        for result in results[len(SYSTEMS):]:
            *lines, total = result.stderr.splitlines()  # the batch's count last
            assert all("nothing to do" in line for line in lines) and total.endswith(f": {len(lines)} unchanged")
    else:  # the first collection's runs keep the system's name; the next ones get their folder's
        first = COLLECTIONS[0]
        assert {(name, system) for name, system, _ in runs} == (
            {(s, s) for s in SYSTEMS} | every_run() - {(f"{s}.{first}", s) for s in SYSTEMS})
    # the rule is said, file by file
    covid = results[0].stderr.splitlines()
    if order == "systems first":
        assert covid[0] == (f"{multi / 'runs' / 'BM25' / 'trec_results_covid.txt'}: named BM25.covid, system BM25, "
                            "from its folder and file name: the files of BM25 answer different queries (one "
                            "collection each), so the folder names the system")
    else:
        dl21 = results[1].stderr.splitlines()
        path = tmp_path / "runs" / "dl21" / names.format(system="BM25")
        assert dl21[0] == (f"{path}: named BM25.dl21, system BM25, from its file name and folder: its tag rank is "
                           "a placeholder, not a name, and BM25 would clash (run BM25 holds other content)")


def test_several_folders_in_one_command_stay_apart(multi, tmp_path):
    db = tmp_path / "irw.duckdb"
    collections = by_collection(multi, tmp_path / "runs")
    irw = Cli(db)
    result = irw("ingest", "run", *[collections / c for c in COLLECTIONS])
    assert result.exit_code == 0, result.stderr
    assert {(name, system) for name, system, _ in stored_runs(db)} == every_run()
    result = irw("ingest", "run", *[multi / "runs" / s for s in SYSTEMS])  # the same bytes: a no-op
    assert result.exit_code == 0 and len(stored_runs(db)) == 12


def test_files_given_from_inside_a_collection_folder_are_named_by_the_folders(multi, tmp_path, monkeypatch):
    """From inside runs/covid/, `BM25.txt ../BM25.txt ../news/BM25.txt`: the folders are covid,
    runs and news, never `..` (the second run was once named `BM25...`)."""
    collections = by_collection(multi, tmp_path / "runs")
    shutil.copyfile(multi / "runs" / "BM25" / "trec_results_dl22.txt", collections / "BM25.txt")
    db = tmp_path / "irw.duckdb"
    monkeypatch.chdir(collections / "covid")
    result = Cli(db)("ingest", "run", "BM25.txt", str(Path("..") / "BM25.txt"), str(Path("..") / "news" / "BM25.txt"))
    assert result.exit_code == 0, result.stderr
    assert stored_runs(db) == [("BM25.covid", "BM25", "rank"), ("BM25.runs", "BM25", "rank"),
                               ("BM25.news", "BM25", "rank")]


def test_a_system_folder_is_told_by_its_stored_files_too(multi, tmp_path):
    """Three collections stored from their folders; the system folders then hold one new file each,
    which alone tells nothing: the stored runs of the same folder say it is one system's."""
    db = tmp_path / "irw.duckdb"
    irw = Cli(db)
    collections = by_collection(multi, tmp_path / "runs")
    for collection in ("dl21", "dl22", "covid"):
        assert irw("ingest", "run", collections / collection).exit_code == 0
    for system in SYSTEMS:
        result = irw("ingest", "run", multi / "runs" / system)
        assert result.exit_code == 0, result.stderr
    runs = {name: system for name, system, _ in stored_runs(db)}
    assert len(runs) == 12
    assert {(name, runs[name]) for name in runs if name.endswith(".news")} == {(f"{s}.news", s) for s in SYSTEMS}


# -- one collection at a time: files of one name in every system folder --------------------------------------

def covid_ndcg10(multi: Path, system: str) -> str:
    """trec_eval's nDCG@10 over all queries (ndcg_cut_10 all) for a system's covid run."""
    for line in (multi / "expected" / f"covid.{system}.all_trec.q.v9.txt").read_text().splitlines():
        measure, query, value = line.split()
        if (measure, query) == ("ndcg_cut_10", "all"):
            return value
    raise AssertionError(f"no ndcg_cut_10 all line for {system}")


def test_one_collection_from_every_system_folder_is_named_by_the_folders(multi, tmp_path):
    """`irw ingest run runs/*/trec_results_covid.txt`: one file per folder, of one name, answering
    the same queries, so each is another system's run of one collection: the folder names the
    system (not the file name, which here names the collection)."""
    db = tmp_path / "irw.duckdb"
    irw = Cli(db)
    assert irw("ingest", "qrels", multi / "qrels" / "qrels.beir-v1.0.0-trec-covid.test.txt", "--name", "covid"
               ).exit_code == 0
    paths = [multi / "runs" / s / "trec_results_covid.txt" for s in SYSTEMS]
    result = irw("ingest", "run", *paths)
    assert result.exit_code == 0, result.stderr
    assert {(name, system) for name, system, _ in stored_runs(db)} == {
        (f"{s}.trec_results_covid", s) for s in SYSTEMS}
    assert result.stderr.splitlines()[0] == (
        f"{paths[0]}: named BM25.trec_results_covid, system BM25, from its folder and file name: its tag rank is "
        "a placeholder, not a name, and trec_results_covid would clash (2 other file(s) of this batch would "
        "have it too); they answer the same queries (one collection), so the folder names the system")
    board = irw("report", "leaderboard", "--qrels", "covid", "-m", "nDCG@10", "--format", "csv")
    assert board.exit_code == 0, board.stderr
    rows = list(csv.DictReader(io.StringIO(board.stdout)))
    assert {row["system"]: f"{float(row['nDCG@10']):.4f}" for row in rows} == {
        s: covid_ndcg10(multi, s) for s in SYSTEMS} == {
        "BM25": "0.5947", "BM25_RM3": "0.5927", "SPLADE_P_P_ENSEMBLE_DISTIL": "0.7274"}
    assert [row["system"] for row in rows] == ["SPLADE_P_P_ENSEMBLE_DISTIL", "BM25", "BM25_RM3"]


@pytest.mark.parametrize("then", ["the others in one command", "one at a time", "every folder again"])
def test_a_stored_run_of_the_same_file_name_and_queries_leaves_the_folder_the_system(multi, tmp_path, then):
    """BM25's covid run stored alone first is named by its file (one file tells nothing); the other
    systems' files of that name then clash with it, answer the same queries, so their folders name
    their systems, and the stored run is said to keep its name."""
    db = tmp_path / "irw.duckdb"
    irw = Cli(db)
    first = multi / "runs" / "BM25" / "trec_results_covid.txt"
    assert irw("ingest", "run", first).exit_code == 0
    others = [multi / "runs" / s / "trec_results_covid.txt" for s in SYSTEMS[1:]]
    if then == "the others in one command":
        results = [irw("ingest", "run", *others)]
    elif then == "one at a time":
        results = [irw("ingest", "run", path) for path in others]
    else:
        results = [irw("ingest", "run", first, *others)]
    assert all(r.exit_code == 0 for r in results), [r.stderr for r in results]
    assert {(name, system) for name, system, _ in stored_runs(db)} == {
        ("trec_results_covid", "trec_results_covid"), ("BM25_RM3.trec_results_covid", "BM25_RM3"),
        ("SPLADE_P_P_ENSEMBLE_DISTIL.trec_results_covid", "SPLADE_P_P_ENSEMBLE_DISTIL")}
    notes = [line for r in results for line in r.stderr.splitlines() if ": named " in line]
    assert len(notes) == 2
    assert all(note.endswith("so the folder names the system; run trec_results_covid, stored before, keeps its "
                             "name and system (irw rename run and irw edit run --system change them)")
               for note in notes), notes


def test_a_new_version_of_a_stored_file_is_refused_as_that_run_s_new_version(multi, tmp_path):
    """A file stored, then written again in its folder (other bytes, the same queries): the stored
    run was read from this file, so it is that run's new version, refused as one with the command
    that stores it beside it, in its system (docs/input-formats.md). It was stored as
    {short}.{folder} without a word (a bulk-ingest walk's variants/run.dl19.BM25.v18.txt, stored
    as v18, became v18.variants: two versions, nothing saying which is current)."""
    db = tmp_path / "irw.duckdb"
    irw = Cli(db)
    folder = tmp_path / "runs"
    folder.mkdir()
    path = folder / "BM25.txt"
    shutil.copyfile(multi / "runs" / "BM25" / "trec_results_covid.txt", path)
    assert irw("ingest", "run", path).exit_code == 0
    path.write_text("".join((multi / "runs" / "BM25_RM3" / "trec_results_covid.txt").read_text().splitlines(True)[:4000]))
    for given in (path, folder):
        again = irw("ingest", "run", given)
        assert again.exit_code == 1 and again.stdout == ""
        first = again.stderr.splitlines()[0]
        assert first.startswith(f"Error: {path}: run BM25 already exists with different content; pass `--replace`")
        assert "(a new version of that run), store it beside that run, in system BM25: " in first
        assert {(name, system) for name, system, _ in stored_runs(db)} == {("BM25", "BM25")}
    hint = re.findall(r"`([^`]*)`", first)[-1]
    assert irw(*shlex.split(hint)[1:]).exit_code == 0
    (version,) = {name for name, _, _ in stored_runs(db)} - {"BM25"}
    assert {(name, system) for name, system, _ in stored_runs(db)} == {("BM25", "BM25"), (version, "BM25")}
    assert re.fullmatch(r"BM25\.\d{4}-\d\d-\d\d", version)
    assert irw("ingest", "run", folder).exit_code == 0  # the folder again: every file stored


@pytest.mark.postgres
def test_a_stored_run_of_the_same_queries_on_postgresql(multi, postgres_url):
    irw = cli_for(postgres_url)
    for system in SYSTEMS:
        assert irw("ingest", "run", multi / "runs" / system / "trec_results_covid.txt").exit_code == 0
    assert {(name, system) for name, system, _ in stored_runs(postgres_url)} == {
        ("trec_results_covid", "trec_results_covid"), ("BM25_RM3.trec_results_covid", "BM25_RM3"),
        ("SPLADE_P_P_ENSEMBLE_DISTIL.trec_results_covid", "SPLADE_P_P_ENSEMBLE_DISTIL")}


def test_files_of_one_name_answering_different_queries_stay_named_by_the_file(tmp_path):
    """The folder-per-collection rule stays where the files of one name answer different queries, and
    a file is named by its folder only when a file sharing its name answers its queries."""
    db = tmp_path / "irw.duckdb"
    same = [("q1", "d1", 1, "2"), ("q2", "d1", 1, "1")]
    same_queries = [("q1", "d2", 1, "2"), ("q2", "d2", 1, "1")]  # other bytes: the same bytes are one run
    other = [("q7", "d1", 1, "2"), ("q8", "d1", 1, "1")]
    paths = []
    for folder, rows in (("sysA", same), ("sysB", same_queries), ("coll2", other)):
        (tmp_path / folder).mkdir()
        paths.append(write_file(tmp_path / folder, "run.txt", run_text(rows, tag="rank")))
    result = Cli(db)("ingest", "run", *paths)
    assert result.exit_code == 0, result.stderr
    assert {(name, system) for name, system, _ in stored_runs(db)} == {
        ("sysA.run", "sysA"), ("sysB.run", "sysB"), ("run.coll2", "run")}
    assert result.stderr.splitlines()[0].endswith(
        "would clash (2 other file(s) of this batch would have it too); 1 of them answers the same queries (one "
        "collection), so the folder names the system")


@pytest.mark.postgres
def test_both_layouts_on_postgresql(multi, tmp_path, postgres_url):
    ingest_layouts(cli_for(postgres_url), multi, by_collection(multi, tmp_path / "runs", "trec_results_{system}.txt"),
                   "collections first")
    runs = stored_runs(postgres_url)
    assert len(runs) == 12
    assert {(name, system) for name, system, _ in runs} == (
        {(s, s) for s in SYSTEMS} | every_run() - {(f"{s}.covid", s) for s in SYSTEMS})


def test_a_runs_numbers_are_trec_eval_s_whatever_its_name(multi, tmp_path):
    db = tmp_path / "irw.duckdb"
    irw = Cli(db)
    assert irw("ingest", "qrels", multi / "qrels" / "qrels.beir-v1.0.0-trec-covid.test.txt", "--name", "covid").exit_code == 0
    assert irw("ingest", "run", multi / "runs" / "BM25").exit_code == 0
    expected = {}
    for line in (multi / "expected" / "covid.BM25.all_trec.q.v9.txt").read_text().splitlines():
        measure, query, value = line.split()
        if query == "all" and measure in ("map", "ndcg_cut_10"):
            expected[measure] = value
    assert set(expected) == {"map", "ndcg_cut_10"}
    with warehouse.open(db) as wh:
        evaluation = wh.evaluate("BM25.covid", "covid", ["map", "ndcg_cut_10"])
    trec_names = {"AP": "map", "nDCG@10": "ndcg_cut_10"}
    got = {trec_names[name]: f"{value:.4f}" for run, name, value, *_ in evaluation.summary.rows if run == "BM25.covid"}
    assert got == expected


# -- placeholder tags ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("tag", ["rank", "run_id", "runid", "Anserini", "tag", "Q0", "pyserini", "STANDARD", "0", "q1"])
def test_placeholder_tags(tag):
    assert is_placeholder(tag)


@pytest.mark.parametrize("tag", ["BM25", "splade-v3", "uogTrA1", "Q0rewrite"])
def test_real_tags_are_names(tag):
    assert not is_placeholder(tag)


def test_a_lone_file_tagged_run_id_is_named_by_its_file_and_says_so(multi, tmp_path):
    db = tmp_path / "irw.duckdb"
    path = multi / "runs" / "SPLADE_P_P_ENSEMBLE_DISTIL" / "trec_results_dl21.txt"
    result = Cli(db)("ingest", "run", path)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[0] == (
        f"{path}: named trec_results_dl21 from its file name: its tag run_id is a placeholder, not a name")
    # the Python API without a name: the same, said in the result's messages
    with warehouse.open(tmp_path / "api.duckdb") as wh:
        ingested = wh.ingest_run(path)
        assert ingested.name == "trec_results_dl21"
        assert "placeholder" in ingested.messages[0]
        # a real tag is the name
        assert wh.ingest_run(write_file(tmp_path, "x.run", run_text(RUN_ROWS, tag="bm25-k1"))).name == "bm25-k1"


def test_the_python_api_takes_a_template(multi, tmp_path):
    with warehouse.open(tmp_path / "api.duckdb") as wh:
        results = wh.ingest_runs([multi / "runs" / "BM25"], name_template="{folder}-{short}", system="{folder}-v1")
        assert [(r.name, r.status) for r in results] == [(f"BM25-{c}", "ingested") for c in COLLECTIONS]
        assert set(wh.sql("select system from runs").column("system")) == {"BM25-v1"}


def test_a_template_names_the_runs_and_the_system(multi, tmp_path):
    db = tmp_path / "irw.duckdb"
    irw = Cli(db)
    for system in SYSTEMS:
        result = irw("ingest", "run", multi / "runs" / system, "--name-template", "{folder}/{short}",
                     "--system", "{folder}")
        assert result.exit_code == 0, result.stderr
    assert {(name, system) for name, system, _ in stored_runs(db)} == {
        (f"{s}/{c}", s) for s in SYSTEMS for c in COLLECTIONS}
    bad = irw("ingest", "run", multi / "runs" / "BM25", "--name-template", "{collection}")
    assert bad.exit_code == 2
    assert bad.stderr == ("Error: --name-template '{collection}': {collection} is not a field; the fields are "
                          "{tag}, {file}, {stem}, {short}, {folder}, {above} (a literal brace is written {{ or }})\n")
    # a literal brace, as the message says (a system named `x {a}` was refused as a template)
    literal = irw("ingest", "run", multi / "runs" / "BM25" / "trec_results_covid.txt", "--system", "x {{a}}",
                  "--name", "braced")
    assert literal.exit_code == 0, literal.stderr
    assert ("braced", "x {a}") in {(name, system) for name, system, _ in stored_runs(db)}


# -- every hint a naming error gives resolves it ----------------------------------------------------------

def _without(args: list[str], option: str) -> list[str]:
    """args without the option (and its value) a hint says it replaces."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg == option:
            skip = True
        else:
            out.append(arg)
    return out


def _hints(stderr: str) -> list[tuple[str, str | None]]:
    """(hint, option it replaces) for every backquoted hint of every Error line."""
    hints = []
    for line in stderr.splitlines():
        assert line.startswith("Error: ")
        instead = re.search(r"\(instead of (--[a-z-]+)", line)
        for hint in re.findall(r"`([^`]*)`", line):
            hints.append((hint, instead.group(1) if instead else None))
    return hints


def _setup_taken(irw: Cli, collections: Path) -> None:
    # BM25 holds dl21's BM25, and BM25.dl22 holds other bytes: dl22/BM25.txt has no free name by the rule
    assert irw("ingest", "run", collections / "dl21").exit_code == 0
    assert irw("ingest", "run", collections / "covid" / "BM25.txt", "--name", "BM25.dl22").exit_code == 0


CASES = {
    "tag shared by the batch": (lambda irw, c: None, lambda c: ["--name-from", "tag", c / "dl21"]),
    "file names shared by two folders": (lambda irw, c: None, lambda c: ["--name-from", "file", c / "dl21", c / "dl22"]),
    "template names two files alike": (lambda irw, c: None, lambda c: ["--name-template", "{tag}", c / "dl21"]),
    "no free name by the rule": (_setup_taken, lambda c: [c / "dl22"]),
    "--name taken": (lambda irw, c: irw("ingest", "run", c / "dl21" / "BM25.txt", "--name", "x"),
                     lambda c: [c / "dl22" / "BM25.txt", "--name", "x"]),
}


@pytest.mark.parametrize("case", CASES)
def test_every_hint_of_a_naming_error_resolves_it(case, multi, tmp_path):
    setup, make_args = CASES[case]
    collections = by_collection(multi, tmp_path / "runs")
    db = tmp_path / "irw.duckdb"
    irw = Cli(db)
    setup(irw, collections)
    if not db.exists():
        with warehouse.open(db):
            pass
    args = [str(a) for a in make_args(collections)]
    before = fingerprint_at(db)
    refused = irw("ingest", "run", *args)
    assert refused.exit_code == 1
    assert fingerprint_at(db) == before  # nothing stored
    hints = _hints(refused.stderr)
    assert hints, refused.stderr
    for index, (hint, instead) in enumerate(dict.fromkeys(hints)):
        copy = tmp_path / f"hint{index}.duckdb"
        shutil.copyfile(db, copy)
        retried = Cli(copy)("ingest", "run", *(_without(args, instead) if instead else args), *shlex.split(hint))
        assert retried.exit_code == 0, (hint, retried.stderr)


# -- rename and edit -----------------------------------------------------------------------------------------

def _covid_warehouse(multi: Path, tmp_path: Path, db: str | Path) -> Cli:
    """covid's qrels and its three runs (BM25, BM25_RM3, SPLADE...), evaluated and compared."""
    irw = cli_for(db)
    folder = tmp_path / "covid"
    folder.mkdir()
    for system in SYSTEMS:
        shutil.copyfile(multi / "runs" / system / "trec_results_covid.txt", folder / f"{system}.txt")
    assert irw("ingest", "qrels", multi / "qrels" / "qrels.beir-v1.0.0-trec-covid.test.txt", "--name", "covid").exit_code == 0
    assert irw("ingest", "run", folder).exit_code == 0
    assert irw("eval", "-m", "map").exit_code == 0
    compared = irw("compare", "-m", "map", "--baseline", "BM25")
    assert compared.exit_code == 0, compared.stderr
    return irw


def _kept(db: str | Path) -> dict[str, list]:
    with warehouse.open(db, read_only=True) as wh:
        return {
            "scores": sorted(wh.sql("select run_id, query_id, measure, value from scores").rows),
            "evaluated": sorted(wh.sql("select evaluation_id, run_id, measure, computed_at from evaluated").rows),
            "tests": sorted(wh.sql("select run_id, baseline_id, p_value, computed_at from significance_results").rows),
        }


@pytest.mark.parametrize("engine", ["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_renaming_a_run_and_a_qrels_set_keeps_scores_tests_and_history(engine, multi, tmp_path, request):
    db = request.getfixturevalue("postgres_url") if engine == "postgres" else tmp_path / "irw.duckdb"
    irw = _covid_warehouse(multi, tmp_path, db)
    before = _kept(db)
    assert before["scores"] and before["tests"]
    renamed = irw("rename", "run", "BM25", "bm25-anserini")
    assert renamed.exit_code == 0, renamed.stderr
    assert renamed.stderr == "renamed run BM25 to bm25-anserini\n"
    assert irw("rename", "qrels", "covid", "trec-covid").stderr == "renamed qrels set covid to trec-covid\n"
    assert _kept(db) == before
    # evaluating again reads the stored scores: nothing computed again (the evaluated rows' times stay)
    again = irw("eval", "bm25-anserini", "--qrels", "trec-covid", "-m", "map", "--format", "csv")
    assert again.exit_code == 0, again.stderr
    assert "bm25-anserini" in again.stdout
    assert _kept(db) == before
    with warehouse.open(db, read_only=True) as wh:
        assert wh.sql("select system from runs where name = 'bm25-anserini'").rows == [("BM25",)]
    for report in (["leaderboard", "-m", "map"], ["history", "-m", "map"]):
        shown = irw("report", *report, "--format", "csv")
        assert shown.exit_code == 0, shown.stderr
        runs = {row["run"] for row in csv.DictReader(io.StringIO(shown.stdout))}
        assert "bm25-anserini" in runs and "BM25" not in runs
    after = _kept(db)  # the reports computed more (their own measures), and changed nothing stored
    assert all(set(before[key]) <= set(after[key]) for key in before)
    # a taken name is refused, naming it; nothing changes
    taken = irw("rename", "run", "bm25-anserini", "BM25_RM3")
    assert taken.exit_code == 1
    assert taken.stderr == ("Error: cannot rename run bm25-anserini to BM25_RM3: a run named BM25_RM3 is stored; "
                            "choose another name, or remove that one first (`irw rm run BM25_RM3`)\n")
    assert irw("rename", "qrels", "nope", "x").exit_code == 1
    assert [r[0] for r in stored_runs(db)] == ["bm25-anserini", "BM25_RM3", "SPLADE_P_P_ENSEMBLE_DISTIL"]
    # its hint resolves it
    (hint,) = re.findall(r"`([^`]*)`", taken.stderr)
    assert irw(*shlex.split(hint)[1:]).exit_code == 0
    assert irw("rename", "run", "bm25-anserini", "BM25_RM3").exit_code == 0
    assert [r[0] for r in stored_runs(db)] == ["BM25_RM3", "SPLADE_P_P_ENSEMBLE_DISTIL"]


@pytest.mark.parametrize("engine", ["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_editing_a_run_changes_its_metadata_only(engine, multi, tmp_path, request):
    db = request.getfixturevalue("postgres_url") if engine == "postgres" else tmp_path / "irw.duckdb"
    irw = _covid_warehouse(multi, tmp_path, db)
    before = _kept(db)
    edited = irw("edit", "run", "BM25_RM3", "--system", "BM25", "--description", "RM3 expansion", "--date",
                 "2020-05-01", "--param", "fb_terms=10")
    assert edited.exit_code == 0, edited.stderr
    assert edited.stderr.splitlines()[0] == "run BM25_RM3: system 'BM25', was 'BM25_RM3'"
    listing = {r["name"]: r for r in json.loads(irw("runs", "--format", "json").stdout)}
    assert (listing["BM25_RM3"]["system"], listing["BM25_RM3"]["description"], listing["BM25_RM3"]["date"],
            listing["BM25_RM3"]["date_source"]) == ("BM25", "RM3 expansion", "2020-05-01T00:00:00", "--date")
    with warehouse.open(db, read_only=True) as wh:
        assert wh.sql("select parameters from runs where name = 'BM25_RM3'").rows[0][0] == {"fb_terms": "10"}
    assert _kept(db) == before
    history = irw("report", "history", "-m", "map", "--format", "csv")
    assert {(r["run"], r["system"]) for r in csv.DictReader(io.StringIO(history.stdout))} >= {("BM25_RM3", "BM25")}
    nothing = irw("edit", "run", "BM25")
    assert nothing.exit_code == 2 and "nothing to edit" in nothing.stderr
    assert irw("edit", "run", "nope", "--system", "x").exit_code == 1


# -- --replace on bytes already stored ------------------------------------------------------------------------

def test_replace_on_stored_bytes_applies_the_metadata_given_and_keeps_a_given_date(seeded_db, irw, tmp_path):
    path = write_file(tmp_path, "seed.run", run_text(RUN_ROWS))  # the seeded run tagA's bytes
    assert irw("eval", "--qrels", "base", "-m", "AP", "tagA").exit_code == 0
    assert irw("ingest", "run", path, "--date", "2019-03-01", "--replace").exit_code == 0
    before = _kept(seeded_db)
    asked = irw("ingest", "run", path, "--system", "bm25", "--description", "k1=0.9")
    assert asked.exit_code == 0
    assert (f"{path}: run tagA has system 'tagA', not 'bm25': pass --replace to change it (the bytes are the same: "
            "its scores stay)") in asked.stderr.splitlines()
    with warehouse.open(seeded_db, read_only=True) as wh:
        assert wh.sql("select system, description from runs").rows == [("tagA", None)]
    applied = irw("ingest", "run", path, "--replace", "--system", "bm25", "--description", "k1=0.9",
                  "--param", "k1=0.9")
    assert applied.exit_code == 0, applied.stderr
    assert applied.stderr.splitlines() == [
        f"{path}: run tagA already holds these bytes; its system is now bm25, was tagA; its description is now "
        "'k1=0.9', was none; its parameters are now k1=0.9, was none",
        f"updated run tagA: 4 lines, 2 queries from {path}"]
    with warehouse.open(seeded_db, read_only=True) as wh:
        assert wh.sql("select system, description, file_created_at::varchar, date_source from runs").rows == [
            ("bm25", "k1=0.9", "2019-03-01 00:00:00", "--date")]  # the --date date, not the file's time
    assert _kept(seeded_db) == before
    again = irw("ingest", "run", path, "--replace", "--system", "bm25")
    assert again.exit_code == 0 and again.stderr.rstrip().endswith("nothing to do")


# -- the README's block, as printed ---------------------------------------------------------------------------

def test_the_readme_naming_block_runs_as_printed(multi, tmp_path, monkeypatch):
    block = section("Run names and dates").split("```", 2)[1]  # docs/input-formats.md
    lines = [line for line in block.splitlines() if line.strip()]
    assert [line.split()[:3] for line in lines] == [
        ["irw", "ingest", "run"], ["irw", "ingest", "run"], ["irw", "ingest", "run"], ["irw", "rename", "run"],
        ["irw", "edit", "run"], ["irw", "ingest", "qrels"], ["irw", "rename", "qrels"]]
    work = tmp_path / "work"
    by_collection(multi, work / "runs")  # runs/dl21/BM25.txt ...
    for system in SYSTEMS:  # runs/BM25/trec_results_dl21.txt ..., as published
        shutil.copytree(multi / "runs" / system, work / "runs" / system)
    (work / "qrels.dl21-passage.txt").symlink_to(multi / "qrels" / "qrels.dl21-passage.txt")
    monkeypatch.chdir(work)
    db = tmp_path / "irw.duckdb"
    irw = Cli(db)
    results = []
    for line in lines:
        result = irw(*shlex.split(line)[1:])
        assert result.exit_code == 0, (line, result.stderr)
        results.append(result)
    # the folders per collection hold the files already stored: nothing to do
    *lines, total = results[2].stderr.splitlines()  # the batch's count last
    assert all(line.endswith("nothing to do") for line in lines)
    assert total == f"{len(lines)} files: {len(lines)} unchanged"
    runs = {name: system for name, system, _ in stored_runs(db)}
    assert len(runs) == 12
    assert runs["bm25-dl21"] == "BM25" and runs["BM25_RM3.news"] == "BM25_RM3" and runs["SPLADE.covid"] == "SPLADE"
    with warehouse.open(db, read_only=True) as wh:
        assert wh.sql("select description, file_created_at::varchar, date_source from runs "
                      "where name = 'bm25-dl21'").rows == [("Anserini BM25, k1=0.9 b=0.4", "2021-06-01 00:00:00",
                                                             "--date")]
        assert wh.sql("select name from qrels_sets").rows == [("trec-dl21",)]


def test_the_python_api_renames_and_edits(seeded_db, tmp_path):
    from warehouse.errors import ConflictError, NotFoundError, ReadOnlyError

    with warehouse.open(seeded_db) as wh:
        wh.evaluate("tagA", "base", "AP")
        before = wh.sql("select run_id, query_id, value from scores").rows
        assert wh.rename_run("tagA", "bm25") == ["renamed run tagA to bm25"]
        assert wh.rename_qrels("base", "trec") == ["renamed qrels set base to trec"]
        assert wh.edit_run("bm25", system="BM25", date="2021-06-01")[0] == "run bm25: system 'BM25', was 'tagA'"
        # given again as they are: said unchanged, not as a change from a value to itself
        assert wh.edit_run("bm25", system="BM25", date="2021-06-01", parameters={"k1": "0.9"}) == [
            "run bm25: system 'BM25', unchanged", "run bm25: parameters k1=0.9, was none",
            "run bm25: date 2021-06-01 00:00:00 (from --date), unchanged"]
        assert wh.sql("select run_id, query_id, value from scores").rows == before
        assert wh.evaluate("bm25", "trec", "AP").value("bm25", "AP") > 0
        wh.ingest_run(write_file(tmp_path, "b.run", run_text(RUN_ROWS[:1], tag="other")))
        with pytest.raises(ConflictError):
            wh.rename_run("other", "bm25")
        with pytest.raises(NotFoundError):
            wh.edit_run("tagA", system="x")
    with warehouse.open(seeded_db, read_only=True) as wh:
        with pytest.raises(ReadOnlyError):
            wh.rename_run("bm25", "x")
        assert wh.sql("select name, system, date_source from runs order by run_id").rows == [
            ("bm25", "BM25", "--date"), ("other", "other", "file mtime")]


@pytest.mark.parametrize("link_name", ["link.txt", "zlink.txt"])
def test_a_link_in_a_folder_to_one_of_its_files_is_said_and_names_no_run(tmp_path, link_name):
    """A folder's link to one of its files: the file was left out silently and its run named by the
    link where the link came first in name order (`link`, `run.dl19.BM25_RM3`), the link silently
    where it came last (a walk). The file is the run, named as without the link, and the link is
    said as a copy is."""
    from conftest import Cli, qrels_text, run_text, write_file

    folder = tmp_path / "F"
    folder.mkdir()
    write_file(folder, "run.dl19.BM25.txt", run_text([("q1", "d1", 1, "2.0"), ("q1", "d3", 2, "1.0")], tag="rank"))
    write_file(folder, "run.dl19.BM25_RM3.txt", run_text([("q1", "d3", 1, "2.0"), ("q1", "d1", 2, "1.0")], tag="rank"))
    (folder / link_name).symlink_to(folder / "run.dl19.BM25.txt")
    irw = Cli(tmp_path / "irw.duckdb")
    assert irw("ingest", "qrels", write_file(tmp_path, "q.txt", qrels_text()), "--name", "q").exit_code == 0
    result = irw("ingest", "run", str(folder) + "/")
    assert result.exit_code == 0, result.stderr
    listed = irw("runs", "--format", "csv").stdout.splitlines()[1:]
    assert [line.split(",")[0] for line in listed] == ["BM25", "BM25_RM3"]
    assert (f"{folder / link_name}: the same bytes as {folder / 'run.dl19.BM25.txt'}: one run, BM25, stored once"
            in result.stderr.splitlines()), result.stderr
