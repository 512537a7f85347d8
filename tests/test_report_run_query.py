"""`irw report run RUN --query Q` with a data format (the docs walk): the query was silently
ignored and the per-query table printed; the data formats now give what the page shows for the
query: its relevant documents, their grades and where the run and the baseline ranked them."""
from __future__ import annotations

import json

import pytest

QUERY = "1037798"


@pytest.fixture
def dl19(irw, conformance):
    folder = conformance / "dl19-passage"
    assert irw("ingest", "qrels", folder / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    assert irw("ingest", "run", folder / "runs").exit_code == 0
    return irw


def _ranks(path, query: str) -> dict[str, int]:
    """trec_eval's ranks of a run file's documents for one query: score descending, then docid descending."""
    rows = [line.split() for line in path.read_text().splitlines() if line.split()[0] == query]
    rows.sort(key=lambda r: r[2], reverse=True)
    rows.sort(key=lambda r: float(r[4]), reverse=True)
    return {r[2]: position for position, r in enumerate(rows, 1)}


def test_a_query_asked_for_in_a_data_format_gives_its_relevant_documents_ranks(dl19, conformance):
    folder = conformance / "dl19-passage"
    result = dl19("report", "run", "BM25", "--qrels", "dl19", "--baseline", "REP_LLAMA", "--query", QUERY,
                  "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert rows and set(rows[0]) == {"query", "doc", "grade", "rank", "REP_LLAMA rank"}
    grades = {line.split()[2]: int(line.split()[3]) for line in (folder / "qrels.dl19-passage.txt").read_text()
              .splitlines() if line.split()[0] == QUERY}
    bm25, rep_llama = (_ranks(folder / "runs" / f"run.dl19.{run}.txt", QUERY) for run in ("BM25", "REP_LLAMA"))
    for row in rows:
        assert row["query"] == QUERY and row["grade"] == grades[row["doc"]] > 0
        assert row["rank"] == bm25.get(row["doc"]) and row["REP_LLAMA rank"] == rep_llama.get(row["doc"])
    assert any(row["REP_LLAMA rank"] is None for row in rows)  # relevant, retrieved by BM25 only


def test_without_a_query_the_data_formats_give_the_per_query_values(dl19):
    result = dl19("report", "run", "BM25", "--qrels", "dl19", "--format", "csv")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0].startswith("query,") and len(result.stdout.splitlines()) == 44


def test_the_page_objects_say_what_they_are_in_a_line(dl19):
    """(The walk) reports.history(...) at the Python prompt printed the dataclass whole: every run,
    chart and Measure. Each page object says what it is in one line, as Leaderboard does."""
    import warehouse
    from warehouse import reports

    with warehouse.open(dl19.db) as wh:
        history = reports.history(wh, "dl19", "AP")
        run = reports.run_page(wh, "BM25", "dl19", ["AP"], baseline="REP_LLAMA")
        compared = reports.compare_page(wh, ["BM25", "REP_LLAMA"], "dl19", ["AP"])
    assert repr(history).startswith("<History on qrels 'dl19' by AP: 6 systems, 6 runs, 0 steps tested (")
    assert repr(run).startswith("<Run page of 'BM25' on qrels 'dl19': AP; baseline 'REP_LLAMA'; 43 queries; ")
    assert repr(compared).startswith("<Compare page: Comparison of 2 runs")
    assert all("\n" not in repr(page) and len(repr(page)) < 400 for page in (history, run, compared))
