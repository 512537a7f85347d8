"""Many runs (issue 12): after one run is added, a leaderboard computes the tests of that run only
and writes that run's page and the board only; stored test results are the results computed
afresh and are computed again when what they depend on changes; a run page written with the
board shows what `irw report run` shows; the 1,000-run board stays under 2 MB."""
from __future__ import annotations

import math
import random
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import warehouse
from many_runs_data import BASELINE, add_run, build, run_name, thousand_runs
from warehouse import reports
from warehouse.evaluation import stats
from warehouse.commands.irw import app
from warehouse.reports import page_leaderboard, pairs
from warehouse.reports.files import PAGE_MANIFEST
from warehouse.evaluation.stats import StatsSettings

RUNS = 8


@pytest.fixture
def db(tmp_path) -> Path:
    return build(tmp_path / "irw.duckdb", range(RUNS))


@pytest.fixture
def computed(monkeypatch) -> list[int]:
    """How many comparisons each call of stats.paired_comparisons (the reports' only way to test) got."""
    calls: list[int] = []
    original = pairs.paired_comparisons

    def spy(compared, settings):
        calls.append(len(compared))
        return original(compared, settings)

    monkeypatch.setattr(pairs, "paired_comparisons", spy)
    return calls


def irw(*args) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stderr


def board_args(db: Path, out: Path, *extra) -> list:
    return ["report", "leaderboard", "--db", db, "--qrels", "q", "--baseline", BASELINE, "-o", out, *extra]


def stamps(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in folder.glob("*.html")}


def test_adding_a_run_tests_it_alone_and_writes_its_page_and_the_board(db, tmp_path, computed):
    out = tmp_path / "site" / "board.html"
    first = irw(*board_args(db, out))
    assert f"wrote {RUNS} run pages to {out.parent / 'board_runs'}" in first
    assert computed == [3 * (RUNS - 1)]  # every run against the baseline on AP, nDCG@10, P@10, at once
    before = stamps(out.parent / "board_runs")
    again = irw(*board_args(db, out))
    assert f"{out} unchanged" in again and f"wrote 0 run pages to {out.parent / 'board_runs'}; {RUNS} unchanged" in again
    assert computed == [3 * (RUNS - 1)] and stamps(out.parent / "board_runs") == before  # nothing tested or written
    with warehouse.open(db) as wh:
        add_run(wh, db.parent / "files", RUNS)
    added = irw(*board_args(db, out))
    assert f"wrote {out}" in added and f"wrote 1 run page to {out.parent / 'board_runs'}; {RUNS} unchanged" in added
    assert computed == [3 * (RUNS - 1), 3]  # the new run against the baseline, nothing else
    after = stamps(out.parent / "board_runs")
    assert {name for name in after if after[name] != before.get(name)} == {f"{run_name(RUNS)}.html"}
    assert (out.parent / "board_runs" / PAGE_MANIFEST).is_file()


_OPENED: list[list[str]] = []  # while a test listens: the paths the process opens (audit event "open")
_HOOKED: list[bool] = []


def _listen(event: str, args: tuple) -> None:
    if _OPENED and event == "open" and isinstance(args[0], (str, Path)):
        _OPENED[-1].append(str(args[0]))




def test_adding_a_run_opens_no_page_but_the_new_one(db, tmp_path):
    """One run added to a board of many: the pages the manifest holds current are neither read nor
    checked (a thousand unchanged pages were opened to add one)."""
    out = tmp_path / "site" / "board.html"
    irw(*board_args(db, out))
    with warehouse.open(db) as wh:
        add_run(wh, db.parent / "files", RUNS)
    folder = out.parent / "board_runs"
    if not _HOOKED:  # in the worker that runs this test only: an audit hook cannot be removed, and
        sys.addaudithook(_listen)  # records only while _OPENED holds a list
        _HOOKED.append(True)
    _OPENED.append([])
    try:
        with warehouse.open(db) as wh:
            written = reports.write_leaderboard(wh, "q", out, baseline=BASELINE)
    finally:
        opened = _OPENED.pop()
    assert [p.name for p in written.written[1:]] == [f"{run_name(RUNS)}.html"]
    assert str(folder / PAGE_MANIFEST) in opened  # the hook hears what the call opens
    pages = {Path(p).name for p in opened if Path(p).parent == folder and Path(p).name.endswith(".html")}
    assert pages <= {f"{run_name(RUNS)}.html"}  # the new page is made, not read; no other is opened


def test_a_cell_has_a_title_only_with_a_mark(db):
    """The title of a leaderboard cell says what its mark means: the cells without a mark (most of
    a board of many runs, tested against the baseline) carry none, so none is made for them."""
    with warehouse.open(db) as wh:
        board = reports.leaderboard(wh, "q", baseline=BASELINE)
    cells = [cell for row in board.rows for cell in row.cells]
    tested = {(row.run, row.measure.name) for row in board.pair_rows if row.result is not None}
    assert len(tested) > sum(1 for cell in cells if cell.mark) > 0
    assert all(bool(cell.title) == bool(cell.mark) for cell in cells)
    assert all(cell.title.startswith(f"{m.name}: significantly ") for row in board.rows
               for m, cell in zip(board.measures, row.cells) if cell.mark)


def test_a_page_changed_or_removed_on_disk_is_written_again(db, tmp_path):
    out = tmp_path / "board.html"
    irw(*board_args(db, out))
    folder = out.parent / "board_runs"
    edited, removed = folder / f"{run_name(1)}.html", folder / f"{run_name(2)}.html"
    original = edited.read_bytes()
    edited.write_text("edited by hand")
    removed.unlink()
    message = irw(*board_args(db, out))
    assert f"wrote 2 run pages to {folder}; {RUNS - 2} unchanged" in message
    assert edited.read_bytes() == original and removed.is_file()


def test_a_page_whose_inputs_changed_is_built_and_left_alone_if_its_bytes_did_not(db, tmp_path):
    out = tmp_path / "board.html"
    irw(*board_args(db, out))
    (out.parent / "board_runs" / PAGE_MANIFEST).write_text("{not json")  # every key unknown: all built again
    assert f"wrote 0 run pages to {out.parent / 'board_runs'}; {RUNS} unchanged" in irw(*board_args(db, out))


def results(comparison) -> list[tuple]:
    return [(r.run, r.measure.name, r.paired, r.run_only, r.baseline_only, r.result, r.p_adjusted) for r in
            comparison.rows]


def same_results(one: list[tuple], other: list[tuple]) -> bool:
    """Equal, nan equal to nan (a PairedResult holds nan where no test could be made)."""
    def key(row):
        return repr(row)
    return [key(r) for r in one] == [key(r) for r in other]


@pytest.mark.parametrize("test", ["randomization", "bootstrap", "ttest"])
def test_stored_results_are_the_results_computed_afresh(db, computed, test):
    settings = StatsSettings(test=test, permutations=2_000)
    with warehouse.open(db) as wh:
        names = wh.run_names()
        fresh = reports.compare(wh, names, "q", baseline=BASELINE, stats=settings)
        assert computed == [3 * (RUNS - 1)]
        stored = reports.compare(wh, names, "q", baseline=BASELINE, stats=settings)
        assert computed == [3 * (RUNS - 1)]  # read, not computed
        assert wh.db.fetchone("select count(*) from significance_results")[0] == 3 * (RUNS - 1)
    assert same_results(results(stored), results(fresh))
    assert all(0 < r.result.p_value <= 1 for r in stored.rows)


def test_results_are_computed_again_when_what_they_depend_on_changes(db, computed):
    with warehouse.open(db) as wh:
        names = wh.run_names()
        reports.compare(wh, names, "q", baseline=BASELINE)
        assert computed == [21]
        # another seed, permutation count or alpha: every result again
        for settings in (StatsSettings(seed=1), StatsSettings(permutations=999), StatsSettings(alpha=0.1)):
            reports.compare(wh, names, "q", baseline=BASELINE, stats=settings)
        assert computed == [21, 21, 21, 21]
        # the t-test uses no seed or resamples: its results hold for any
        reports.compare(wh, names, "q", baseline=BASELINE, stats=StatsSettings(test="ttest"))
        reports.compare(wh, names, "q", baseline=BASELINE, stats=StatsSettings(test="ttest", seed=5,
                                                                                permutations=50))
        assert computed == [21, 21, 21, 21, 21]
        # one run's scores computed again: its three comparisons again, the others' read
        wh.evaluate([run_name(3)], "q", ["AP", "nDCG@10", "P@10"], recompute=True)
        reports.compare(wh, names, "q", baseline=BASELINE)
        assert computed == [21, 21, 21, 21, 21, 3]
        # the baseline's: every comparison against it
        wh.evaluate([BASELINE], "q", ["AP"], recompute=True)
        reports.compare(wh, names, "q", baseline=BASELINE)
        assert computed == [21, 21, 21, 21, 21, 3, 7]


def test_a_result_stored_twice_is_kept_once_and_a_read_only_warehouse_stores_none(db, computed):
    with warehouse.open(db) as wh:
        names = wh.run_names()
        first = reports.compare(wh, names, "q", baseline=BASELINE)
        stored = wh.db.fetchall("select * from significance_results order by all")
        # another process that computed the same results stores them after us: kept once, no error
        wh.db.execute("drop table if exists report_new_tests")
        wh.db.execute("create temp table report_new_tests as select evaluation_id, measure, run_id, baseline_id, "
                      "run_scores_at, run_queries, baseline_scores_at, baseline_queries, queries, run_only, "
                      "baseline_only, run_mean, baseline_mean, diff, ci_low, ci_high, statistic, p_value, wins, ties, "
                      "losses, exact from significance_results")
        settings = StatsSettings()
        wh.db.run_file("reports/store_tests.sql", {"test": settings.test, "seed": settings.seed,
                                                   "permutations": settings.permutations, "alpha": settings.alpha,
                                                   "method": stats.METHOD})
        assert wh.db.fetchall("select * from significance_results order by all") == stored
    with warehouse.open(db, read_only=True) as wh:
        again = reports.compare(wh, names, "q", baseline=BASELINE)  # read
        other = reports.compare(wh, names, "q", baseline=BASELINE, stats=StatsSettings(seed=9))  # computed
        assert wh.db.fetchone("select count(*) from significance_results")[0] == len(stored)
    assert computed == [21, 21]
    assert same_results(results(again), results(first))
    assert all(r.result is not None and 0 < r.result.p_value <= 1 for r in other.rows)


def test_stored_results_go_with_their_run(db):
    with warehouse.open(db) as wh:
        reports.compare(wh, wh.run_names(), "q", baseline=BASELINE)
        run_id = wh.db.fetchone("select run_id from runs where name = ?", [run_name(4)])[0]
        wh.remove_run(run_name(4))
        assert wh.db.fetchone("select count(*) from significance_results where run_id = ? or baseline_id = ?",
                              [run_id, run_id])[0] == 0
        assert wh.db.fetchone("select count(*) from significance_results")[0] == 3 * (RUNS - 2)
        wh.remove_run(BASELINE)
        assert wh.db.fetchone("select count(*) from significance_results")[0] == 0


def summary_rows(html: str) -> list[str]:
    """The run page's Summary table rows, as HTML."""
    table = html.split("<h2>Summary</h2>", 1)[1].split("</table>", 1)[0]
    return re.findall(r"<tr>.*?</tr>", table, re.S)


def test_a_run_page_of_the_board_shows_the_numbers_irw_report_run_shows(db, tmp_path):
    out = tmp_path / "board.html"
    irw(*board_args(db, out))
    alone = tmp_path / "run.html"
    irw("report", "run", run_name(5), "--db", db, "--qrels", "q", "--baseline", BASELINE, "-o", alone)
    with_board = (out.parent / "board_runs" / f"{run_name(5)}.html").read_text(encoding="utf-8")
    rows = summary_rows(with_board)
    assert len(rows) == 4 and rows == summary_rows(alone.read_text(encoding="utf-8"))  # header and 3 measures
    # corrected over the page's own three comparisons, not the board's 21
    assert "over 3 comparisons" in with_board and "21 comparisons" not in with_board
    board = out.read_text(encoding="utf-8")
    assert "over 21 comparisons" in board


def test_tie_overlap_marks_are_those_of_every_pair_compared():
    rng = random.Random(3)
    for _ in range(300):
        rows = []
        for i in range(rng.randint(0, 12)):
            low = rng.choice([0.1, 0.2, 0.3, rng.random()])
            high = low + rng.choice([0.0, 0.0, 0.05, 0.1, rng.random() / 3])
            rows.append(page_leaderboard.LeaderboardRow(i, f"r{i}", "s", None, None, [], False, None, None, None,
                                                        False, 1, 1, None, None))
            rows[-1]._range = (low, high) if rng.random() < 0.9 else None
        ranges = {r.run: r._range for r in rows if r._range is not None}
        page_leaderboard._mark_tie_ranks(rows, ranges)
        def key(value):  # the ranking's rounding: 0.2 + 0.1 ties 0.3
            return round(value, page_leaderboard.RANK_DECIMALS)

        for row in rows:
            # another run can be above this one (its high end above this low end) and can also not
            # be (its low end at or below this high end): a walk found 0.8070 [0.8070, 0.8070] unmarked
            # beside [0.8070, 0.8256], which ties it and can pass it
            expected = row.tie_range is not None and any(
                other is not row and other.tie_range is not None and key(row.tie_range[0]) < key(other.tie_range[1])
                and key(other.tie_range[0]) <= key(row.tie_range[1]) for other in rows)
            assert row.rank_may_change == expected, (row.run, row.tie_range, ranges)


@pytest.mark.thousand_runs
def test_the_1000_run_leaderboard_is_under_2_mb_and_the_history_leads_with_one_small_chart():
    pages = thousand_runs()
    html = pages["leaderboard"].read_text(encoding="utf-8")
    size = len(html.encode("utf-8"))
    body = html.split('<table class="sortable leaderboard', 1)[1].split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert body.count("<tr") == 1000 and "1,000 stored runs" in html and run_name(999) in html
    assert size < 2 * 1024 * 1024, f"{size:,} bytes"
    history = pages["history"].read_text(encoding="utf-8")
    # 111 systems of about 9 runs each: the overview chart first, then one table of their runs, no chart each
    content = history.split("<main>", 1)[1]
    assert content.index("<h2>All runs</h2>") < content.index("<svg") < content.index("<table")
    assert len(re.findall(r'<svg class="chart(?: has-compact)?"', content)) == 1  # and its compact drawing
    assert "111 systems have two or more runs" in content
    history_size = len(history.encode("utf-8"))
    assert history_size < 1024 * 1024, f"{history_size:,} bytes"
    print(f"\n1,000 runs: leaderboard {size:,} bytes, history {history_size:,} bytes")


def test_a_cold_board_computes_its_runs_in_batches_of_runs_stored_together(db, tmp_path, monkeypatch):
    """Each Warehouse.evaluate call of a cold board gets runs stored one after another (so DuckDB
    reads only their row groups), not the board's name order, and the pages are the same."""
    from warehouse.core import Warehouse
    from warehouse.reports import scope

    asked: list[list[str]] = []
    original = Warehouse.evaluate

    def spy(self, runs, *args, **kwargs):
        asked.append(list(runs))
        return original(self, runs, *args, **kwargs)

    monkeypatch.setattr(scope, "EVALUATE_BATCH", 3)
    monkeypatch.setattr(Warehouse, "evaluate", spy)
    irw(*board_args(db, tmp_path / "site" / "board.html"))
    stored = [run_name(s) for s in range(RUNS)]  # in the order build() stored them
    assert sorted(stored) != stored  # name order is another order
    assert [run for batch in asked for run in batch] == stored
    assert [len(batch) for batch in asked] == [3, 3, 2]


def test_pairs_tested_in_blocks_are_the_pairs_tested_at_once(db, computed, monkeypatch):
    with warehouse.open(db) as wh:
        names = wh.run_names()
        at_once = reports.compare(wh, names, "q", baseline=BASELINE)
    other = build(db.parent / "other" / "irw.duckdb", range(RUNS))
    monkeypatch.setattr(pairs, "PAIRS_PER_BLOCK", 3)
    with warehouse.open(other) as wh:
        board = page_leaderboard.leaderboard(wh, "q", baseline=BASELINE)
        in_blocks = reports.compare(wh, names, "q", baseline=BASELINE)  # read back as the board stored them
    assert computed == [3 * (RUNS - 1), 9, 9, 3]  # 7 pairs x 3 measures, then blocks of 3, 3 and 1 pairs
    assert same_results(results(in_blocks), results(at_once))
    assert all(not row.run_values for row in board.pair_rows)  # the values of a block are let go


def test_release_memory_lets_go_of_table_blocks_and_keeps_the_memory_limit(db):
    """DuckDB keeps the blocks it read until its memory limit; release_memory evicts them down to
    64 MiB besides what DuckDB holds otherwise, and sets the limit back."""
    with warehouse.open(db) as wh:
        limit = wh.db.fetchone("select current_setting('memory_limit')")[0]
        wh.db.execute("create table big as select range as i, random() as x from range(16000000)")
        wh.db.execute("checkpoint")
        wh.db.fetchone("select sum(i), sum(x) from big")

        def table_blocks() -> int:
            return wh.db.fetchone("select coalesce(sum(memory_usage_bytes), 0) from duckdb_memory() "
                                  "where tag = 'BASE_TABLE'")[0]

        assert table_blocks() > 96 << 20
        wh.db.release_memory()
        assert table_blocks() <= 64 << 20
        assert wh.db.fetchone("select current_setting('memory_limit')")[0] == limit
