"""Two collections that number their queries alike stay apart: in run names and systems, in which
qrels set judges a run (`irw runs`, `--qrels X` selection) and in the systems table.

BEIR's trec-covid and webis-touche2020 both number their queries 1..49. The data here: the
multi-collection conformance folder's covid runs and qrels as published (queries 1..50), and its
news runs and qrels with their query ids renumbered 1..57 (a map of news's sorted ids), kept as a
collection `touche` whose ids coincide with covid's; skipped where ../shared/conformance is absent.
Every value is checked against trec_eval's own files for covid and news (renumbering query ids
changes no summary value). Before, the covid runs of a folder read after touche's were named
`covid.BM25` in a system `covid` (their query ids fell inside touche's), `--qrels touche` chose
them too (0.0000), and the systems table ranked that system `covid` first.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

import warehouse

from conftest import Cli

SYSTEMS = ("BM25", "SPLADE_P_P_ENSEMBLE_DISTIL")
TREC_NAME = {"covid": "covid", "touche": "news"}  # the conformance collection whose trec_eval files hold the values
ALIKE = "numbering their queries alike"


def renumbered(source: Path, target: Path, numbers: dict[str, str]) -> Path:
    lines = []
    for line in source.read_text().splitlines():
        query, rest = line.split(maxsplit=1)
        lines.append(f"{numbers[query]} {rest}")
    target.write_text("\n".join(lines) + "\n")
    return target


@pytest.fixture(scope="module")
def shared_ids(multi_collection: Path, tmp_path_factory) -> Path:
    return shared_ids_folder(multi_collection, tmp_path_factory.mktemp("shared-ids"))


def shared_ids_folder(multi_collection: Path, root: Path) -> Path:
    """covid/ and touche/ in root, one file per system under the same names, and touche.qrels
    (test_spark.py reads them too)."""
    news_qrels = multi_collection / "qrels" / "qrels.beir-v1.0.0-trec-news.test.txt"
    ids = sorted({line.split()[0] for line in news_qrels.read_text().splitlines()})
    numbers = {query: str(number) for number, query in enumerate(ids, start=1)}
    renumbered(news_qrels, root / "touche.qrels", numbers)
    for collection in ("covid", "touche"):
        (root / collection).mkdir()
    for system in SYSTEMS:
        runs = multi_collection / "runs" / system
        (root / "covid" / f"{system}.txt").write_bytes((runs / "trec_results_covid.txt").read_bytes())
        renumbered(runs / "trec_results_news.txt", root / "touche" / f"{system}.txt", numbers)
    covid_ids = {line.split()[0] for line in (root / "covid" / "BM25.txt").read_text().splitlines()}
    touche_ids = {line.split()[0] for line in (root / "touche" / "BM25.txt").read_text().splitlines()}
    assert len(covid_ids & touche_ids) == 50  # every covid query id is a touche one
    return root


def trec_eval_value(multi_collection: Path, collection: str, system: str, measure: str = "ndcg_cut_10") -> str:
    path = multi_collection / "expected" / f"{TREC_NAME[collection]}.{system}.all_trec.q.v9.txt"
    for line in path.read_text().splitlines():
        name, query, value = line.split()
        if name == measure and query == "all":
            return value
    raise AssertionError(f"{measure} not in {path}")


def warehouse_of(target: str | Path, shared_ids: Path, multi_collection: Path, batches: list[list[str]]) -> Cli:
    irw = Cli(Path("unused"))
    irw.db = target
    covid_qrels = multi_collection / "qrels" / "qrels.beir-v1.0.0-trec-covid.test.txt"
    assert irw("ingest", "qrels", covid_qrels, "--name", "covid").exit_code == 0
    assert irw("ingest", "qrels", shared_ids / "touche.qrels", "--name", "touche").exit_code == 0
    for folders in batches:
        result = irw("ingest", "run", *[shared_ids / folder for folder in folders])
        assert result.exit_code == 0, result.stderr
        irw.last_ingest = result
    return irw


def stored(target: str | Path) -> dict[str, tuple[str, str]]:
    """name -> (system, judged_by) as `irw runs` lists them."""
    with warehouse.open(target, read_only=True) as wh:
        listing = wh.runs()
        name, system, judged_by = (listing.columns.index(c) for c in ("name", "system", "judged_by"))
        return {row[name]: (row[system], row[judged_by]) for row in listing.rows}


EXPECTED_RUNS = {f"{system}.{collection}": (system, f"{collection} {queries}/{queries}")
                 for system in SYSTEMS for collection, queries in (("covid", 50), ("touche", 57))}


@pytest.mark.parametrize("batches", [[["touche"], ["covid"]], [["covid"], ["touche"]], [["touche", "covid"]]],
                         ids=["touche-first", "covid-first", "one-batch"])
def test_folders_of_two_collections_numbering_queries_alike_name_the_systems(shared_ids, multi_collection,
                                                                              tmp_path, batches):
    db = tmp_path / "irw.duckdb"
    irw = warehouse_of(db, shared_ids, multi_collection, batches)
    runs = stored(db)
    if len(batches) == 2:  # the first folder's files keep their names (nothing clashed yet)
        first = batches[0][0]
        assert runs.pop("BM25") == ("BM25", f"{first} {50 if first == 'covid' else 57}/{50 if first == 'covid' else 57}")
        runs.pop("SPLADE_P_P_ENSEMBLE_DISTIL")
        expected = {name: row for name, row in EXPECTED_RUNS.items() if not name.endswith(first)}
    else:
        expected = EXPECTED_RUNS
    assert runs == expected
    notes = [line for line in irw.last_ingest.stderr.splitlines() if "named" in line]
    assert notes and all("the same query ids but its documents are another collection's (numbering its queries "
                         "alike), so the file names the system" in line for line in notes), notes


def test_a_file_given_the_name_of_the_other_collection_s_run_is_refused_saying_why(shared_ids, multi_collection,
                                                                                  tmp_path):
    irw = warehouse_of(tmp_path / "irw.duckdb", shared_ids, multi_collection, [["touche"]])
    refused = irw("ingest", "run", shared_ids / "covid" / "BM25.txt", "--name", "BM25")
    assert refused.exit_code != 0
    assert ("run BM25 already exists and answers 50 of this file's 50 query ids, but its documents are another "
            "collection's (one numbering its queries alike, it seems); give it another name with --name"
            in refused.stderr), refused.stderr


def test_a_set_judging_only_the_query_ids_is_not_the_runs_set(shared_ids, multi_collection, tmp_path):
    db = tmp_path / "irw.duckdb"
    irw = warehouse_of(db, shared_ids, multi_collection, [["touche", "covid"]])
    for collection in ("covid", "touche"):
        result = irw("eval", "--qrels", collection, "-m", "nDCG@10", "-f", "csv")
        assert result.exit_code == 0, result.stderr
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        assert {row["run"]: f"{float(row['nDCG@10']):.4f}" for row in rows} == {
            f"{system}.{collection}": trec_eval_value(multi_collection, collection, system) for system in SYSTEMS}
        assert (f"2 stored runs left out: qrels {collection} judges their query ids but none of the documents "
                f"they retrieved, which another stored set judges (two collections {ALIKE})") in result.stderr
    # the other collection's runs, chosen by a pattern: said why none is left
    result = irw("eval", "*.covid", "--qrels", "touche", "-m", "nDCG@10")
    assert result.exit_code != 0
    assert "no matching run is judged by qrels touche" in result.stderr and ALIKE in result.stderr
    result = irw("eval", "BM25.c*", "--qrels", "touche", "-m", "nDCG@10")
    assert "Error: run BM25.covid is not judged by qrels touche: qrels touche judges its query ids" in result.stderr
    # named outright, a run is evaluated with the qrels given, as trec_eval would (0: nothing judged)
    result = irw("eval", "BM25.covid", "--qrels", "touche", "-m", "nDCG@10", "-f", "csv")
    assert result.exit_code == 0, result.stderr
    assert float(list(csv.DictReader(io.StringIO(result.stdout)))[0]["nDCG@10"]) == 0
    assert "none of BM25.covid's retrieved documents is judged in touche" in result.stderr
    # (a walk) compare, the leaderboard and history said nothing of it: a "significant" 0.3741
    note = ("# run BM25.covid is taken as it was named, though qrels touche judges its query ids but none of the "
            "documents it retrieved, which another stored set judges (two collections numbering their queries "
            "alike): its values on touche are those of unjudged documents (0 for most measures)")
    for command in (["compare"], ["report", "leaderboard"], ["report", "history"]):
        said = irw(*command, "--qrels", "touche", "-m", "nDCG@10", "BM25.covid", "BM25.touche", "-f", "csv")
        assert said.exit_code == 0 and note in said.stderr.splitlines(), (command, said.stderr)
    # a reader, the scores never computed: said so, not "has no query judged" (its query ids are)
    with warehouse.open(db, read_only=True) as wh:
        with pytest.raises(warehouse.ReadOnlyError, match="never computed") as raised:
            wh.evaluate(["SPLADE_P_P_ENSEMBLE_DISTIL.covid"], "touche", "AP")
        assert "no query judged" not in str(raised.value)


def systems_table(irw: Cli) -> list[dict[str, str]]:
    result = irw("report", "systems", "-m", "nDCG@10", "-f", "csv")
    assert result.exit_code == 0, result.stderr
    return list(csv.DictReader(io.StringIO(result.stdout)))


def expected_systems(multi_collection: Path) -> list[dict[str, str]]:
    rows = []
    for system in SYSTEMS:
        values = {c: trec_eval_value(multi_collection, c, system) for c in ("covid", "touche")}
        rows.append({"system": system, **values, "mean": sum(map(float, values.values())) / 2})
    rows.sort(key=lambda row: -row["mean"])
    return rows


def assert_systems(table: list[dict[str, str]], multi_collection: Path) -> None:
    expected = expected_systems(multi_collection)
    assert [row["system"] for row in table] == [row["system"] for row in expected] == [
        "SPLADE_P_P_ENSEMBLE_DISTIL", "BM25"]
    for row, want in zip(table, expected):
        assert row["rank"] == str(expected.index(want) + 1)
        for collection in ("covid", "touche"):
            assert float(row[collection]) == pytest.approx(float(want[collection]), abs=5e-5)
        assert float(row["mean"]) == pytest.approx(want["mean"], abs=1e-4)


def test_the_systems_table_has_each_system_once_with_trec_eval_s_values(shared_ids, multi_collection, tmp_path):
    irw = warehouse_of(tmp_path / "irw.duckdb", shared_ids, multi_collection, [["touche"], ["covid"]])
    for system in SYSTEMS:
        assert irw("rename", "run", system, f"{system}.touche").exit_code == 0
    assert_systems(systems_table(irw), multi_collection)


def test_a_set_s_values_are_those_of_the_runs_it_judges(shared_ids, multi_collection, tmp_path):
    """(A walk) BM25.covid evaluated outright with touche's qrels stored its 0.0000 under touche's
    evaluation, and, being BM25's latest run, became BM25's touche value in the systems table."""
    irw = Cli(tmp_path / "irw.duckdb")
    assert irw("ingest", "qrels", multi_collection / "qrels" / "qrels.beir-v1.0.0-trec-covid.test.txt",
               "--name", "covid").exit_code == 0
    assert irw("ingest", "qrels", shared_ids / "touche.qrels", "--name", "touche").exit_code == 0
    assert irw("ingest", "run", shared_ids / "touche", "--date", "2026-01-01").exit_code == 0
    assert irw("ingest", "run", shared_ids / "covid", "--date", "2026-02-01").exit_code == 0
    before = systems_table(irw)
    for system in SYSTEMS:
        assert irw("eval", "--qrels", "touche", "-m", "nDCG@10", f"{system}.covid").exit_code == 0
    after = systems_table(irw)
    assert after == before
    for system in SYSTEMS:
        assert irw("rename", "run", system, f"{system}.touche").exit_code == 0
    assert_systems(after, multi_collection)


def test_small_runs_are_told_apart_by_the_sets_judging_their_documents(shared_ids, multi_collection, tmp_path):
    """(A walk) nine queries' top twenty: too few documents ranked first to compare (DOCUMENTS_TO_TELL),
    so query ids alone made the two collections one, and the folders covid and touche systems; the
    stored qrels sets judging their documents tell them apart, as they tell which set judges each."""
    small = tmp_path / "small"
    for collection in ("covid", "touche"):
        (small / collection).mkdir(parents=True)
        for system in SYSTEMS:
            lines = [line for line in (shared_ids / collection / f"{system}.txt").read_text().splitlines()
                     if int(line.split()[0]) <= 9 and int(line.split()[3]) <= 20]
            (small / collection / f"{system}.txt").write_text("\n".join(lines) + "\n")
    db = tmp_path / "irw.duckdb"
    irw = Cli(db)
    assert irw("ingest", "qrels", multi_collection / "qrels" / "qrels.beir-v1.0.0-trec-covid.test.txt",
               "--name", "covid").exit_code == 0
    assert irw("ingest", "qrels", shared_ids / "touche.qrels", "--name", "touche").exit_code == 0
    result = irw("ingest", "run", small / "covid", small / "touche")
    assert result.exit_code == 0, result.stderr
    assert stored(db) == {f"{system}.{collection}": (system, f"{collection} 9/9")
                          for system in SYSTEMS for collection in ("covid", "touche")}


def test_a_run_no_set_judges_a_document_of_is_judged_by_its_queries(shared_ids, multi_collection, tmp_path):
    """Where no stored set judges any document a run retrieved, the sets judging its queries judge it
    (every retrieved document unjudged: trec_eval scores it 0), as before documents were asked."""
    db = tmp_path / "irw.duckdb"
    irw = warehouse_of(db, shared_ids, multi_collection, [["covid"]])
    unjudged = tmp_path / "unjudged.txt"
    unjudged.write_text("".join(f"{q} Q0 nowhere-{q}-{d} {d} {100 - d} mine\n" for q in range(1, 51) for d in range(1, 11)))
    assert irw("ingest", "run", unjudged).exit_code == 0
    assert stored(db)["mine"][1] == "covid 50/50, touche 50/50"
    result = irw("eval", "--qrels", "touche", "-m", "nDCG@10", "-f", "csv")
    assert [row["run"] for row in csv.DictReader(io.StringIO(result.stdout))] == ["mine"]


@pytest.mark.postgres
def test_on_postgresql_too(shared_ids, multi_collection, postgres_url):
    irw = warehouse_of(postgres_url, shared_ids, multi_collection, [["touche"], ["covid"]])
    runs = stored(postgres_url)
    assert {name: row for name, row in runs.items() if name.endswith(".covid")} == {
        name: row for name, row in EXPECTED_RUNS.items() if name.endswith(".covid")}
    assert runs["BM25"] == ("BM25", "touche 57/57")
    for system in SYSTEMS:
        assert irw("rename", "run", system, f"{system}.touche").exit_code == 0
    assert_systems(systems_table(irw), multi_collection)
    result = irw("eval", "--qrels", "touche", "-m", "nDCG@10", "-f", "csv")
    assert {row["run"] for row in csv.DictReader(io.StringIO(result.stdout))} == {
        "BM25.touche", "SPLADE_P_P_ENSEMBLE_DISTIL.touche"}

