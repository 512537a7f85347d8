"""What a team tracking its systems over months found (a walk of 28 runs over eight months): runs of
one system and one date were ordered by name in the history, so renaming one changed which run each
was compared with, and the verdicts; and a leaderboard's folder kept the pages of runs removed or
renamed since, which a team publishing the folder went on serving."""
from __future__ import annotations

import csv
import io

import pytest

from conftest import Cli

pytestmark = pytest.mark.conformance


@pytest.fixture
def one_date(tmp_path, conformance) -> Cli:
    dl19 = conformance / "dl19-passage"
    irw = Cli(tmp_path / "w.duckdb")
    assert irw("ingest", "qrels", dl19 / "qrels.dl19-passage.txt", "--name", "dl19").exit_code == 0
    for version, run in (("v3", "BM25"), ("v4", "BM25_RM3"), ("v5", "SPLADE_P_P_ENSEMBLE_DISTIL")):
        assert irw("ingest", "run", dl19 / "runs" / f"run.dl19.{run}.txt", "--name", version,
                   "--system", "S", "--date", "2026-07-01").exit_code == 0
    return irw


def _history(irw: Cli) -> list[tuple[str, str]]:
    result = irw("report", "history", "-m", "AP", "-f", "csv")
    assert result.exit_code == 0, result.stderr
    return [(row["run"], row["previous"]) for row in csv.DictReader(io.StringIO(result.stdout))]


def test_runs_of_one_date_keep_their_ingest_order_when_one_is_renamed(one_date):
    assert _history(one_date) == [("v3", ""), ("v4", "v3"), ("v5", "v4")]
    assert one_date("rename", "run", "v3", "z3").exit_code == 0
    assert _history(one_date) == [("z3", ""), ("v4", "z3"), ("v5", "v4")]


def test_a_leaderboard_removes_the_pages_of_runs_no_longer_on_it_and_keeps_one_someone_changed(one_date, tmp_path):
    board = tmp_path / "site" / "index.html"
    pages = board.parent / "index_runs"

    def report():
        result = one_date("report", "leaderboard", "-m", "AP", "-o", board)
        assert result.exit_code == 0, result.stderr
        return result.stderr

    report()
    assert sorted(p.name for p in pages.glob("*.html")) == ["v3.html", "v4.html", "v5.html"]
    assert one_date("rm", "run", "v4").exit_code == 0
    assert one_date("rename", "run", "v3", "z3").exit_code == 0
    said = report()
    assert f"removed 2 run pages the board no longer links from {pages}: v3.html, v4.html\n" in said, said
    assert sorted(p.name for p in pages.glob("*.html")) == ["v5.html", "z3.html"]
    assert "v4.html" not in board.read_text() and "z3.html" in board.read_text()
    with open(pages / "z3.html", "a") as page:  # someone's now: left as it is
        page.write("<!-- ours -->")
    assert one_date("rm", "run", "z3").exit_code == 0
    assert "removed" not in report()
    assert sorted(p.name for p in pages.glob("*.html")) == ["v5.html", "z3.html"]


def test_a_leaderboard_without_run_pages_removes_those_an_earlier_one_wrote(one_date, tmp_path):
    """A lifecycle walk: `--no-run-pages` left the whole folder of an earlier board's run pages
    beside a board that links none of them (a removed run's page among them)."""
    board = tmp_path / "index.html"
    pages = tmp_path / "index_runs"
    assert one_date("report", "leaderboard", "-m", "AP", "-o", board).exit_code == 0
    (pages / "notes.txt").write_text("ours")  # not irw's: kept
    assert one_date("rm", "run", "v4").exit_code == 0
    result = one_date("report", "leaderboard", "-m", "AP", "-o", board, "--no-run-pages")
    assert result.exit_code == 0, result.stderr
    assert f"removed 3 run pages the board no longer links from {pages}: v3.html, v4.html, v5.html\n" in result.stderr
    assert sorted(p.name for p in pages.iterdir() if not p.name.startswith(".")) == ["notes.txt"]
    assert "index_runs" not in board.read_text()
    again = one_date("report", "leaderboard", "-m", "AP", "-o", board, "--no-run-pages")
    assert again.exit_code == 0 and "removed" not in again.stderr


def test_a_difference_that_rounds_to_nothing_is_printed_without_a_sign(one_date):
    """History and compare tables printed `-0.0000` (a reverted version's delta, -0.00001), where the
    HTML pages printed 0.0000: one rule for a number's text now, in every table."""
    result = one_date("sql", "select cast(-0.00001 as double) as tiny, cast(-0.5 as double) as half, "
                             "cast(-0.0 as double) as zero")
    assert result.exit_code == 0, result.stderr
    assert "-0.0000" not in result.stdout and result.stdout.count("0.0000") == 2 and "-0.5000" in result.stdout


def test_a_system_that_differs_from_a_stored_one_only_in_letter_case_is_said(one_date, conformance):
    """`irw edit run v5 --system s` made a system of its own beside S, silently: the run sat alone
    in the history (`irw runs --system s` would have pointed to S)."""
    edited = one_date("edit", "run", "v5", "--system", "s")
    assert edited.exit_code == 0, edited.stderr
    assert edited.stderr.splitlines()[-1] == (
        "run v5: its system s differs from the stored system S only in letter case, so they are two systems "
        "(each with a history of its own); to put the run in S: irw edit run --system S v5")
    ingested = one_date("ingest", "run", conformance / "dl19-passage" / "runs" / "run.dl19.BM25.txt",
                        "--name", "v6", "--system", "s")
    assert ingested.exit_code == 0 and "run v6: its system s differs from the stored system S" in ingested.stderr
    assert one_date("edit", "run", "v5", "--system", "S").stderr.count("differs") == 1  # v6 is still s
    assert one_date("edit", "run", "v6", "--system", "S").stderr.count("differs") == 0


def test_a_run_dated_after_today_is_said_at_ingest_and_edit(one_date, conformance):
    """A walk typed a date years ahead and nothing was said: the run became its system's latest in
    history and in the systems table until that day. Said now, with how to correct it; a date up
    to a day ahead (another time zone) is not."""
    import datetime as dt

    dl19 = conformance / "dl19-passage"
    run = dl19 / "runs" / "run.dl19.OPEN_AI_ADA2.txt"
    ahead = one_date("ingest", "run", run, "--name", "v6", "--system", "S", "--date", "2052-01-01")
    assert ahead.exit_code == 0, ahead.stderr
    today = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d")
    said = (f"run v6 is dated 2052-01-01 00:00:00 (from --date), after today ({today} UTC): history and the systems "
            "table take it as its system's latest run until then; `irw edit run --date DATE v6` corrects it")
    assert f"{run}: {said}" in ahead.stderr.splitlines()
    corrected = one_date("edit", "run", "v6", "--date", "2025-02-01")
    assert "after today" not in corrected.stderr
    again = one_date("edit", "run", "v6", "--date", "2052-01-01")
    assert again.stderr.splitlines()[-1] == said
    tomorrow = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=20)).strftime("%Y-%m-%dT%H:%M")
    near = one_date("edit", "run", "v6", "--date", tomorrow)
    assert near.exit_code == 0 and "after today" not in near.stderr, near.stderr
