"""A comparison whose run has a score that is no number on some query (trec_eval's -nan: 0/0 of
11pt_avg under -M -J) is not tested, as trec_eval's mean of it is undefined too; the report says
so and gives the command that shows the query, instead of an empty row with 0 wins, ties and
losses and nothing said. Real data: the multi-collection set's TREC News runs, where trec_eval's
own output has -nan for one query of SPLADE's run."""
from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from conftest import Cli

RUNS = {"BM25": "BM25", "SPLADE": "SPLADE_P_P_ENSEMBLE_DISTIL"}


@pytest.fixture(scope="module")
def news(conformance, tmp_path_factory) -> Cli:
    data = conformance / "multi-collection"
    if not data.is_dir():
        pytest.skip("no multi-collection conformance data")
    irw = Cli(tmp_path_factory.mktemp("news") / "irw.duckdb")
    assert irw("ingest", "qrels", data / "qrels" / "qrels.beir-v1.0.0-trec-news.test.txt", "--name", "news").exit_code == 0
    for name, folder in RUNS.items():
        result = irw("ingest", "run", data / "runs" / folder / "trec_results_news.txt", "--name", name)
        assert result.exit_code == 0, result.stderr
    return irw


def test_a_mean_that_is_no_number_is_said_with_the_command_that_shows_its_query(news, conformance):
    expected = (conformance / "multi-collection" / "expected" /
                "news.SPLADE_P_P_ENSEMBLE_DISTIL.all_trec.M10.J.q.v9.txt").read_text()
    nan_queries = {line.split()[1] for line in expected.splitlines() if line.startswith("11pt_avg")
                   and line.split()[2] == "-nan"}
    assert nan_queries  # trec_eval's own -nan
    result = news("compare", "BM25", "SPLADE", "-m", "11pt_avg", "-m", "AP", "-M", "10", "-J")
    assert result.exit_code == 0, result.stderr
    notes = [line for line in result.stderr.splitlines() if line.startswith("# not tested: 11pt_avg")]
    assert len(notes) == 1, result.stderr
    assert "SPLADE's score is not a number on some query" in notes[0]
    command = notes[0].split("`")[1]
    argv = shlex.split(command)
    assert argv[:2] == ["irw", "eval"]
    shown = news(*argv[1:])
    assert shown.exit_code == 0, shown.stderr
    nan_lines = {line.split()[1] for line in shown.stdout.splitlines()[2:] if line.split()[-1] == "nan"}
    assert nan_lines == nan_queries - {"all"}
    # AP, every score a number, is tested as before
    assert "not tested: AP" not in result.stderr
