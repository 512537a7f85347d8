"""A leaderboard whose first measure has no number for any run ranks nothing: the board showed every
rank as -, tested nothing, exited 0, and its caption said "every pair of runs ... over 0
comparisons". It is an error that says why and what to put first, from the command, the Python
API and the page irw serve builds; a board with that measure second is ranked and tested as before."""
from __future__ import annotations

import pytest

import warehouse
from warehouse.reports.page_leaderboard import leaderboard_page

from conftest import dl19_with_measure

NAN_MEASURE = """-- measure: undefined
-- parameters: none
-- aggregate: mean
select run_id, query_id, cast('nan' as double) as value from ranked_judged group by run_id, query_id
"""
SAID = ("no run is ranked: undefined, the measure the board ranks by (the first), is not a number (nan) for every "
        "run on dl19; put a measure with a value for the runs first (e.g. AP, then undefined)")


def test_a_board_ranked_by_a_measure_no_run_has_a_number_on_is_refused(conformance, tmp_path):
    irw, _ = dl19_with_measure(conformance, tmp_path, "undefined", NAN_MEASURE)
    for extra in (["--format", "markdown"], ["-o", tmp_path / "board.html"]):
        refused = irw("report", "leaderboard", "-m", "undefined", "-m", "AP", *extra)
        assert (refused.exit_code, refused.stdout, refused.stderr) == (2, "", f"Error: {SAID}\n")
    assert not (tmp_path / "board.html").exists() and not (tmp_path / "board_runs").exists()
    second = irw("report", "leaderboard", "-m", "AP", "-m", "undefined", "--format", "markdown")
    assert second.exit_code == 0, second.stderr
    assert "every run against BM25\\_RM3, Holm-Bonferroni step-down correction over 1 comparison" in second.stdout
    with warehouse.open(tmp_path / "irw.duckdb") as wh:
        with pytest.raises(warehouse.UsageError) as raised:
            wh.leaderboard("dl19", ["undefined", "AP"])
        assert str(raised.value) == SAID
        with pytest.raises(warehouse.UsageError) as served:  # what irw serve's page is built by
            leaderboard_page(wh, "dl19", ["undefined", "AP"], stores_missing=True)
        assert str(served.value) == SAID
