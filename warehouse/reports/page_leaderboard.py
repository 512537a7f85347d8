"""The leaderboard: every stored run on one qrels set, ranked, tested against a baseline."""
from __future__ import annotations

import bisect
import datetime as dt
import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from warehouse.store import catalog
from warehouse.errors import NotFoundError, ReadOnlyError, UsageError
from warehouse.evaluation.evaluator import Settings
from warehouse.evaluation.measures import Measure, parse_all
from warehouse.evaluation.stats import StatsSettings, correct, optimistic_marks, optimistic_said, unreachable_said
from warehouse.formats.cells import said_name
from warehouse.formats.escaping import shown as shown_text
from warehouse.formats.table import Table, Tabular
from warehouse.reports.display import fmt_delta, fmt_p, fmt_value, missing, plural
from warehouse.formats.files import check_output
from warehouse.reports.files import (PAGE_MANIFEST, PageManifest, PagesWritten, href, run_page_names,
                                     run_pages_dir, write_if_changed)
from warehouse.reports.footer import settings_items
from warehouse.reports.page_run import board_run_pages, render_run_page, run_page_keys
from warehouse.reports.pairs import (PairRow, correct_together, correction_said, load_wanted_entries, measure_names,
                                     tested_pairs)
from warehouse.reports.pairs import _test_settings as test_settings, load_wanted as load_pair_wanted
from warehouse.reports.paper_tables import PaperTables
from warehouse.reports.render import render
from warehouse.reports.scope import (COVERAGE_MEASURE, WANTED_COLUMNS, Scope, _parse_measures, best_shown, ensure_scores,
                                     higher_is_better, load_run_order, load_scope, pr_measures, run_ids_in_order,
                                     testable, tie_forms, tie_forms_left_out, wanted_entries)

if TYPE_CHECKING:  # annotations only: the reports take the Warehouse (warehouse/core.py) that calls them
    from warehouse.core import Warehouse


@dataclass
class Cell:
    value: float | None
    best: bool = False
    mark: str = ""          # 'better' / 'worse' (significant against the baseline, corrected)
    title: str = ""         # what the mark says (the test's numbers); none without a mark


def _mark_title(row: PairRow) -> str:
    if row.result is None:
        return ""
    verdict = {"better": "significantly better than", "worse": "significantly worse than"}.get(
        row.direction, "not significantly different from")
    return (f"{row.measure.name}: {verdict} {row.baseline}; difference {fmt_delta(row.result.diff)}, "
            f"p {fmt_p(row.result.p_value)}, corrected p {fmt_p(row.p_adjusted)}, {row.paired} queries")


def _board_row(name: str, entry: dict[str, Any], shown, by_pair: dict, best: dict[str, set[str]], primary_name: str,
               coverage_name: str, baseline: str | None, link: str | None) -> LeaderboardRow:
    """One run's row of a leaderboard, whole (static pages) or paged (irw serve): its cells with the
    best values bold and the marks of its tests against the baseline."""
    cells = []
    for m in shown:
        value = entry["values"].get(m.name)
        pair = by_pair.get((name, m.name))
        mark = pair.direction if pair else ""
        # the title goes with a mark only: made for the few marked cells, not every tested one
        cells.append(Cell(value, fmt_value(value) in best.get(m.name, set()), mark, _mark_title(pair) if mark else ""))
    primary = by_pair.get((name, primary_name))
    return LeaderboardRow(
        rank=entry["rank"], run=name, system=entry["system"], description=entry["description"],
        date=entry["run_date"], cells=cells, is_baseline=name == baseline,
        delta=(primary.result.diff if primary and primary.result and primary.result.n
               else 0.0 if name == baseline else None),
        p_adjusted=primary.p_adjusted if primary and primary.tested else None,
        paired_queries=primary.paired if primary else None,
        partial_pairing=bool(primary and not primary.same_queries),
        queries=entry["queries_by"].get(primary_name, 0), judged_queries=entry["judged_queries"],
        coverage=entry["values"].get(coverage_name), link=link)


@dataclass
class LeaderboardRow:
    rank: int | None
    run: str
    system: str
    description: str | None
    date: dt.datetime | None
    cells: list[Cell]
    is_baseline: bool
    delta: float | None
    p_adjusted: float | None
    paired_queries: int | None
    partial_pairing: bool
    queries: int
    judged_queries: int
    coverage: float | None      # Judged@10
    link: str | None
    tie_range: tuple[float, float] | None = None  # the primary measure's lowest and highest over tie orders
    rank_may_change: bool = False  # another order of tied documents could move this run past another


@dataclass
class Leaderboard(PaperTables, Tabular):
    scope: Scope
    stats: StatsSettings
    baseline: str | None
    baseline_chosen: bool       # True when the baseline defaulted to the top run
    rows: list[LeaderboardRow]
    pair_rows: list[PairRow]
    tested: int
    settings: list[tuple[str, str]]
    family: str
    selection: Any = None  # the runs chosen (catalog.RunSelection), and those left out
    system_shown: bool | None = None  # a page of the board: whether any run of the whole board has a system
    ties_note: str = ""  # why the primary measure's range over tie orders is left out, where the settings refuse it

    @property
    def measures(self) -> list[Measure]:
        return self.scope.measures

    @property
    def show_system(self) -> bool:
        """The System column says something only when some run's system is not its own name."""
        if self.system_shown is not None:
            return self.system_shown
        return any(row.system != row.run for row in self.rows)

    @property
    def unreachable(self) -> str:
        """What the page (and the command, on stderr) says when no run can be marked: the test's
        smallest p corrected over the board's comparisons is not below alpha (stats.unreachable_said)."""
        return unreachable_said(self.tested, self.stats)

    @cached_property  # the page reads it twice
    def optimistic(self) -> str:
        """What the page says of the marks a test that is not exact made over too few queries for any
        exact test to reach alpha (stats.optimistic_marks), else ''."""
        rows = optimistic_marks(self.pair_rows, self.stats)
        return optimistic_said(rows, self.stats) if rows else ""

    def __repr__(self) -> str:
        # the dataclass's own repr printed the Scope, every Measure and every row: 17,159 characters
        # for 6 runs x 2 measures; as Evaluation's (warehouse/evaluation/evaluator.py), what it is
        if self.baseline is None:
            against = "no baseline"
        else:
            against = f"baseline {said_name(self.baseline)}{' (the top run)' if self.baseline_chosen else ''}, " \
                      f"{plural(self.tested, 'comparison')}, {correction_said(self.stats.correction)}"
        return (f"<Leaderboard of {plural(len(self.rows), 'run')} on qrels {said_name(self.scope.qrels)}, ranked by "
                f"{shown_text(self.scope.primary.name)}: {measure_names(self.measures)}; {against}; "
                f"{self.scope.settings.describe()}>")

    def paper_table(self):
        """The runs x measures table for a paper (warehouse/reports/paper.py), letters from the tests
        against the baseline."""
        from warehouse.reports import paper

        return paper.from_leaderboard(self, higher_is_better)

    def table(self) -> Table:
        """The leaderboard as data (irw report leaderboard --format json|csv|...)."""
        primary = self.scope.primary.name
        columns = ["rank", "run", "system", "run_date", *[m.name for m in self.measures], f"delta_{primary}",
                   f"p_adjusted_{primary}", "significant", "queries", "judged_queries", COVERAGE_MEASURE,
                   f"{primary}_tie_low", f"{primary}_tie_high", "rank_may_change_with_ties"]
        rows = []
        for row in self.rows:
            marks = {m.name: cell.mark for m, cell in zip(self.measures, row.cells) if cell.mark}
            rows.append((row.rank, row.run, row.system, row.date, *[c.value for c in row.cells], row.delta,
                         row.p_adjusted, ", ".join(f"{k} {v}" for k, v in marks.items()) or None, row.queries,
                         row.judged_queries, row.coverage, *(row.tie_range or (None, None)),
                         # empty, not false, where no tie order was computed (a measure of one's own)
                         row.rank_may_change if row.tie_range is not None else None))
        return Table(columns, rows)


def leaderboard(wh: Warehouse, qrels: str, measures: Sequence[str] | None = None, *,
                runs: str | Sequence[str] | None = None, systems: str | Sequence[str] | None = None,
                baseline: str | None = None, settings: Settings | None = None, stats: StatsSettings | None = None,
                run_pages: bool = False) -> Leaderboard:
    """The stored runs on one qrels set, ranked by the primary (first) measure, tested against the
    baseline (default: the top run) on every measure, corrected together.

    runs and systems choose the runs as Warehouse.select_runs does: names and shell-style
    patterns (default: every stored run), of these systems; the runs a pattern, a system or the
    default chose that qrels does not judge are left out (Leaderboard.selection says which).
    A baseline not chosen is added."""
    settings = settings or Settings()
    stats = stats or StatsSettings()
    if not wh.db.run_file("catalog/run_count.sql").fetchone()[0]:
        raise UsageError("the warehouse holds no runs; ingest some with `irw ingest run`")
    selection = catalog.select_runs(wh.db, runs, systems=systems, qrels=qrels)
    names = sorted(selection)
    if baseline is not None and baseline not in names:
        catalog.require_baseline(wh.db, baseline, qrels)  # a name not stored: NotFoundError
        names.append(baseline)
    extra = [COVERAGE_MEASURE] + (pr_measures() if run_pages else [])
    ensured = not wh.db.read_only
    if ensured:
        # every score the board reads, the primary measure's tie-order forms included, computed in
        # one pass over the runs: a second pass for the tie forms prepared every run's rows again
        # (41 of the 73 s of scoring 1,000 runs cold)
        wanted = _parse_measures(measures, settings.level)
        wanted += [m for m in parse_all(extra) if m.name not in {x.name for x in wanted}]
        wanted += tie_forms(wanted[0], settings)
        ensure_scores(wh, qrels, catalog.qrels_set_id(wh.db, qrels), names, wanted, settings)
    # the scores are computed where missing; the board reads every run's summary itself
    scope = load_scope(wh, qrels, measures, [] if ensured else names, settings, extra, summary=False)
    shown = scope.measures
    coverage = parse_all([COVERAGE_MEASURE])[0]
    ties = _tie_measures(scope, names, ensured=ensured)
    tie_entries = wanted_entries(wh, scope.qrels_id, settings, ties)
    load_wanted_entries(scope, scope.wanted_for(shown + ([coverage] if coverage.name not in {m.name for m in shown}
                                                         else [])) + [tie_entries[m.name] for m in ties])
    load_run_order(wh, run_ids_in_order(wh, names))  # report_runs: the runs the board shows
    table = scope.sql("leaderboard", {"qrels_set_id": scope.qrels_id})
    runs: dict[str, dict[str, Any]] = {}
    counts = {m.name for m in shown if m.is_count}  # shown as integers, as trec_eval prints them
    spreads: dict[str, dict[str, float]] = {}
    for row in table.to_dicts():
        if row["measure"] in tie_entries:  # the primary measure's lowest / highest over tie orders
            if row["value"] is not None:
                spreads.setdefault(row["run"], {})[row["measure"]] = row["value"]
            continue
        entry = runs.setdefault(row["run"], {**row, "values": {}, "queries_by": {}})
        entry["values"][row["measure"]] = int(row["value"]) if row["measure"] in counts and row["value"] is not None \
            else row["value"]
        entry["queries_by"][row["measure"]] = row["queries"]
    ranked = [name for name, entry in runs.items() if entry["rank"] is not None]
    if runs and not ranked:
        raise _unranked_board([entry["values"].get(scope.primary.name) for entry in runs.values()],
                              scope.primary.name, qrels)
    chosen = baseline is None
    if baseline is None and ranked:
        baseline = ranked[0]
    elif baseline is not None and baseline not in ranked:
        raise _unranked_baseline(baseline, runs.get(baseline, {}).get("values", {}).get(scope.primary.name),
                                 scope.primary.name, qrels)
    pairs = [(name, baseline) for name in ranked if name != baseline] if baseline else []
    pair_rows = tested_pairs(scope, pairs, shown, stats)
    family = correct_together(pair_rows, stats)
    by_pair = {(row.run, row.measure.name): row for row in pair_rows}
    best = {m.name: best_shown([e["values"].get(m.name) for e in runs.values()], m) for m in shown}
    rows = []
    pages = run_page_names(runs) if run_pages else {}
    for name, entry in runs.items():
        rows.append(_board_row(name, entry, shown, by_pair, best, scope.primary.name, coverage.name, baseline,
                               pages.get(name)))
    if len(ties) == 2:
        low, high = (m.name for m in ties)
        ranked_runs = set(ranked)
        _mark_tie_ranks(rows, {run: (v[low], v[high]) for run, v in spreads.items()
                               if run in ranked_runs and len(v) == 2})
    family_text = (f"over {plural(family.tested, 'comparison')}: {plural(len(pairs), 'run')} against {baseline} x "
                   f"{plural(sum(1 for m in shown if testable(m)), 'measure')}" if baseline else "no comparisons")
    return Leaderboard(scope, stats, baseline, chosen, rows, pair_rows, family.tested,
                       settings_items(scope, stats, family_text), family_text, selection,
                       ties_note=tie_forms_left_out(scope.primary, settings))


def _unranked_board(values: Sequence[float | None], primary: str, qrels: str) -> UsageError:
    """The error of a board that ranks no run: its primary measure (the first) has no number for any
    of them, so there is no top run and nothing to test against (the page showed every rank as -
    and said its runs were tested as every pair, over 0 comparisons)."""
    why = ("is not a number (nan) for every run" if values and all(v is not None and math.isnan(v) for v in values)
           else "has no value for any run")
    return UsageError(f"no run is ranked: {primary}, the measure the board ranks by (the first), {why} on {qrels}; "
                      f"put a measure with a value for the runs first (e.g. AP, then {primary})")


def _unranked_baseline(baseline: str, value: float | None, primary: str, qrels: str) -> UsageError:
    """The error of a baseline the board does not rank: no value of the primary measure, or a NaN one."""
    if value is not None and math.isnan(value):
        return UsageError(f"baseline {baseline} is not ranked: its {primary} on {qrels} is undefined (nan); "
                          "choose another --baseline")
    return UsageError(f"baseline {baseline} was not evaluated on any query of {qrels}; choose another --baseline")


def _tie_measures(scope: Scope, names: Sequence[str], ensured: bool = False) -> list[Measure]:
    """The primary measure's lowest and highest form over tie orders (sql/measures/ties.sql),
    computed where missing (unless the caller did: ensured); none when it has no such form, the
    settings leave them undefined (tie_forms), or a read-only warehouse never computed them."""
    ties = tie_forms(scope.primary, scope.settings)
    if ties and not ensured:
        try:
            ensure_scores(scope.wh, scope.qrels, scope.qrels_id, names, ties, scope.settings)
        except ReadOnlyError:
            return []
    return ties


def _mark_tie_ranks(rows: Sequence[LeaderboardRow], ranges: dict[str, tuple[float, float]]) -> None:
    """Each row's range of the primary mean over tie orders, and whether its rank could change
    under another order (_ranks_may_change)."""
    for row in rows:
        row.tie_range = ranges.get(row.run)
    may_change = _ranks_may_change(ranges, [row.run for row in rows if row.tie_range is not None])
    for row in rows:
        row.rank_may_change = may_change.get(row.run, False)


def render_leaderboard(board: Leaderboard, run_pages_href: str | None = None) -> str:
    """The leaderboard page; run_pages_href: the folder of its run pages, relative to it (links)."""
    return render("leaderboard.html", board=board, title=f"Leaderboard: {board.scope.qrels}",
                  runs_dir=run_pages_href, settings=board.settings)


def write_leaderboard(wh: Warehouse, qrels: str, path: Path, measures: Sequence[str] | None = None, *,
                      runs: str | Sequence[str] | None = None, systems: str | Sequence[str] | None = None,
                      baseline: str | None = None, settings: Settings | None = None,
                      stats: StatsSettings | None = None, run_pages: bool = True,
                      progress: Callable[[int, int], None] | None = None) -> PagesWritten:
    """Writes the leaderboard to path and, with run_pages, each run's page to the folder named
    after it (run_pages_dir: dl19.html -> dl19_runs/). Returns every file of the report, the
    leaderboard first, and which were written: a page whose content did not change is left as it
    is, and a run page whose inputs did not change (files.PageManifest) is not even built. The
    leaderboard is written last, so it never links to a page not written yet.
    progress(done, total) follows the run pages. runs and systems choose the runs as leaderboard()
    does."""
    path = Path(path)
    check_output(path)
    board = leaderboard(wh, qrels, measures, runs=runs, systems=systems, baseline=baseline, settings=settings,
                        stats=stats, run_pages=run_pages)
    folder = run_pages_dir(path)
    out = PagesWritten([path], notes=[board.unreachable] if board.unreachable else [])
    if run_pages:
        back = href("..", path.name)
        manifest = PageManifest(folder)
        keys = run_page_keys(board, back)
        links = {row.run: row.link for row in board.rows}
        out.paths += [folder / row.link for row in board.rows]
        build = [row.run for row in board.rows if not manifest.current(row.link, keys[row.run])]
        building = set(build)
        # every file to be written, before any is: a page the manifest holds current is not
        # written, so it is not opened either (a thousand unchanged pages were read to add one)
        for name in [PAGE_MANIFEST, *(links[run] for run in build)]:
            check_output(folder / name)
        out.unchanged += [folder / row.link for row in board.rows if row.run not in building]
        done = len(board.rows) - len(build)
        kept = len(out.unchanged)
        for page in board_run_pages(board, build):  # in the order the runs were stored
            page_path = folder / links[page.run]
            changed = write_if_changed(page_path, render_run_page(page, leaderboard_href=back))
            (out.written if changed else out.unchanged).append(page_path)
            manifest.record(links[page.run], keys[page.run])
            done += 1
            if progress is not None:
                progress(done, len(board.rows))
        place = {path: i for i, path in enumerate(out.paths)}  # the lists name the pages in the board's order
        out.written.sort(key=place.__getitem__)
        out.unchanged[kept:] = sorted(out.unchanged[kept:], key=place.__getitem__)
        gone = manifest.save(links.values())
    elif (folder / PAGE_MANIFEST).is_file():
        # the run pages an earlier board wrote here, which this one does not link: removed as a
        # removed run's page is (a walk found the whole folder left beside a board without links)
        check_output(folder / PAGE_MANIFEST)
        gone = PageManifest(folder).save([])
    else:
        gone = []
    html = render_leaderboard(board, href(folder.name) if run_pages else None)
    (out.written if write_if_changed(path, html) else out.unchanged).insert(0, path)
    if gone:  # once the leaderboard no longer links to them
        for name in gone:
            try:
                (folder / name).unlink()
                out.removed.append(folder / name)
            except FileNotFoundError:
                pass
    return out


# -- one page of the leaderboard (irw serve) ---------------------------------------------------------

# the decimals runs are ranked by (sql/reports/leaderboard.sql, leaderboard_page.sql and
# leaderboard_ranges.sql round to them): float noise in the last bits never splits a tie
RANK_DECIMALS = 12
SORT_KINDS = ("rank", "run", "system", "measure", "queries", "date")


@dataclass
class PageChoice:
    """What one page of a served leaderboard shows: the sort (kind: SORT_KINDS; position: the
    measure's place in the board's measures when kind is 'measure'), the filter text ('' keeps
    every run), the page (from 1) and rows per page."""

    sort_kind: str = "rank"
    sort_position: int = 0
    descending: bool = False
    filter: str = ""
    page: int = 1
    per_page: int = 50

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page


@dataclass
class LeaderboardPage:
    """One page of a leaderboard: board (its rows are the page's, each with its rank over the whole
    board, marks corrected over the whole board's family), total (the runs the filter keeps),
    board_runs (every run of the board), and the choice it shows."""

    board: Leaderboard
    total: int
    board_runs: int
    choice: PageChoice

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.choice.per_page))

    @property
    def first_row(self) -> int:
        return self.choice.offset + 1

    @property
    def last_row(self) -> int:
        return self.choice.offset + len(self.board.rows)


class NoRunMatches(NotFoundError):
    """A filter no run of the board holds, or a page past the last. back: where a page links
    instead (the server sets it: the list without the filter, or its first page)."""

    back: tuple[str, str] | None = None


def leaderboard_page(wh: Warehouse, qrels: str, measures: Sequence[str] | None = None, *,
                     runs: str | Sequence[str] | None = None, systems: str | Sequence[str] | None = None,
                     baseline: str | None = None, choice: PageChoice | None = None,
                     settings: Settings | None = None, stats: StatsSettings | None = None,
                     stores_missing: bool = False) -> LeaderboardPage:
    """One page of leaderboard(wh, qrels, measures, runs=..., systems=..., baseline=...): the same
    board (runs, ranks, bests, tests against the baseline corrected as one family over every run),
    of which SQL (sql/reports/leaderboard_page.sql) keeps the runs the filter holds, sorts them by
    the chosen column (ties by run name) and returns one page; only that page's rows are built.
    A filter no run holds, or a page past the last, is a NoRunMatches that says so.
    stores_missing: what the page would store where missing (the primary measure's tie-order
    range, the runs' summaries in score_summaries) is a ReadOnlyError on a read-only connection,
    so that the server builds the page again where it may write, once; else, as leaderboard()
    does, a read-only warehouse shows the ranges only where stored, and sums the summaries it
    lacks for this page only."""
    settings = settings or Settings()
    stats = stats or StatsSettings()
    choice = choice or PageChoice()
    if not wh.db.run_file("catalog/run_count.sql").fetchone()[0]:
        raise UsageError("the warehouse holds no runs; ingest some with `irw ingest run`")
    selection = catalog.select_runs(wh.db, runs, systems=systems, qrels=qrels)
    names = sorted(selection)
    if baseline is not None and baseline not in names:
        catalog.require_baseline(wh.db, baseline, qrels)
        names.append(baseline)
    ids = catalog.run_ids(wh.db, names)  # once: each lookup binds every name of the board
    board_ids = [ids[name] for name in names]
    load_run_order(wh, board_ids)  # report_runs: the board's runs, read by every query below
    scope, evaluated = _page_scope(wh, qrels, measures, names, settings, ids, stores_missing)
    shown = scope.measures
    coverage = parse_all([COVERAGE_MEASURE])[0]
    if stores_missing:  # _page_scope computed them where missing, with the shown measures
        ties = tie_forms(scope.primary, settings)
    else:
        ties = _tie_measures(scope, names)
    tie_entries = wanted_entries(wh, scope.qrels_id, settings, ties)
    entries = scope.wanted_for(shown + ([coverage] if coverage.name not in {m.name for m in shown} else []))
    entries += [tie_entries[m.name] for m in ties]
    load_wanted_entries(scope, entries)
    if evaluated:  # Warehouse.evaluate may have used report_runs: the board's runs again
        load_run_order(wh, board_ids)
    # the runs' summaries not stored yet (sql/reports/leaderboard_summaries.sql), stored where the
    # connection may write: each is computed once per run's scores, then read by every page
    wh.db.run_file("reports/leaderboard_summaries.sql")
    if stores_missing and wh.db.read_only and wh.db.run_file("reports/report_summary_count.sql").fetchone()[0]:
        raise ReadOnlyError("the runs' summaries the leaderboard reads are not stored yet")
    if not wh.db.read_only:
        with wh.db.transaction():
            wh.db.run_file("reports/store_summaries.sql")
    wh.db.run_file("reports/analyze_board.sql")
    # every run's primary value and tie range (rounded sums): which runs are ranked (so tested), and
    # whether another order of a run's tied documents could move it past any other run
    tie_positions = [len(entries) - len(ties) + i for i in range(len(ties))] if len(ties) == 2 else [-1, -1]
    ranges = scope.sql("leaderboard_ranges", {"primary_position": 0, "low_position": tie_positions[0],
                                              "high_position": tie_positions[1]}).rows
    params = {"qrels_set_id": scope.qrels_id, "sort_kind": choice.sort_kind, "sort_position": choice.sort_position,
              "descending": choice.descending, "filter": choice.filter, "page_limit": choice.per_page,
              "page_offset": choice.offset}
    table = scope.sql("leaderboard_page", params)
    if not table.rows:
        everything = scope.sql("leaderboard_page", {**params, "filter": "", "page_limit": 1, "page_offset": 0})
        board_runs = everything.to_dicts()[0]["board_runs"] if everything.rows else 0
        kept = scope.sql("leaderboard_page", {**params, "page_limit": 1, "page_offset": 0}).to_dicts()
        if not kept:
            raise NoRunMatches(f"no run of the {plural(board_runs, 'run')} on {qrels} holds {choice.filter!r} "
                               "in its name or system; clear the filter or try another")
        pages = max(1, -(-kept[0]["total"] // choice.per_page))
        raise NoRunMatches(f"page {choice.page} is past the last: {plural(kept[0]['total'], 'run')} make "
                           f"{plural(pages, 'page')} of {choice.per_page}; choose a page from 1 to {pages}")
    first = table.to_dicts()[0]
    total, board_runs, top_run = first["total"], first["board_runs"], first["top_run"]
    # a NaN mean is no value (leaderboard_page.sql leaves its run unranked): not ranked, not tested
    ranked = [run for run, primary_value, _low, _high in ranges if not missing(primary_value)]
    if ranges and not ranked:
        raise _unranked_board([primary_value for _run, primary_value, _low, _high in ranges], scope.primary.name,
                              qrels)
    chosen = baseline is None
    if baseline is None and ranked:
        baseline = top_run
    elif baseline is not None and baseline not in ranked:
        raise _unranked_baseline(baseline, next((v for run, v, _l, _h in ranges if run == baseline), None),
                                 scope.primary.name, qrels)
    pairs = [(name, baseline) for name in ranked if name != baseline] if baseline else []
    p_values = _family_p_values(scope, pairs, [m for m in shown if testable(m)], stats, ids)
    keys = list(p_values)
    adjusted = dict(zip(keys, correct([p_values[key] for key in keys], stats.correction)))
    tested_count = sum(1 for key in keys if not math.isnan(p_values[key]))
    # the page's runs' whole results (stored now, where the family's were missing and may be stored)
    on_page = list(dict.fromkeys(row["run"] for row in table.to_dicts()))
    ranked_set = set(ranked)
    pair_rows = tested_pairs(scope, [(name, baseline) for name in on_page if name in ranked_set and name != baseline],
                             shown, stats) if baseline else []
    for row in pair_rows:
        p = adjusted.get((row.run, row.measure.name))
        if row.result is not None and p is not None:
            row.p_adjusted, row.significant = p, not math.isnan(p) and p < stats.alpha
    by_pair = {(row.run, row.measure.name): row for row in pair_rows}
    counts = {m.name for m in shown if m.is_count}
    page_runs: dict[str, dict[str, Any]] = {}
    bests: dict[str, set[str]] = {}
    for row in table.to_dicts():
        entry = page_runs.setdefault(row["run"], {**row, "values": {}, "queries_by": {}})
        entry["values"][row["measure"]] = int(row["value"]) if row["measure"] in counts and row["value"] is not None \
            else row["value"]
        entry["queries_by"][row["measure"]] = row["queries"]
        if row["measure"] not in bests and row["measure"] not in tie_entries:
            bests[row["measure"]] = best_shown([row["best_high"], row["best_low"]], shown_measure(shown, row["measure"]))
    rows = []
    for name, entry in page_runs.items():
        rows.append(_board_row(name, entry, shown, by_pair, bests, scope.primary.name, coverage.name, baseline, None))
    if len(ties) == 2:
        low, high = (m.name for m in ties)
        spans = {run: (lo, hi) for run, _p, lo, hi in ranges if run in ranked_set and lo is not None and hi is not None}
        may_change = _ranks_may_change(spans, [row.run for row in rows if row.run in spans])
        for row in rows:
            if row.run in may_change:
                values = page_runs[row.run]["values"]
                row.tie_range = (values[low], values[high])  # as shown: trec_eval's sums
                row.rank_may_change = may_change[row.run]
    family_text = (f"over {plural(tested_count, 'comparison')}: {plural(len(pairs), 'run')} against {baseline} x "
                   f"{plural(sum(1 for m in shown if testable(m)), 'measure')}" if baseline else "no comparisons")
    board = Leaderboard(scope, stats, baseline, chosen, rows, pair_rows, tested_count,
                        settings_items(scope, stats, family_text), family_text, selection,
                        system_shown=bool(first["systems_shown"]),
                        ties_note=tie_forms_left_out(scope.primary, settings))
    return LeaderboardPage(board, total, board_runs, choice)


def _family_p_values(scope: Scope, pairs: Sequence[tuple[str, str]], measures: Sequence[Measure],
                     stats: StatsSettings, ids: dict[str, int]) -> dict[tuple[str, str], float]:
    """{(run, measure): p} of every pair (run, baseline) x testable measure: the family a page's marks
    are corrected over, as leaderboard() corrects it (a test without a p-value is nan). The stored
    results are read (sql/reports/family_p_values.sql: the p-values only); the pairs lacking one are
    tested by tested_pairs, which stores them where the connection may write."""
    if not pairs or not measures:
        return {}
    db = scope.wh.db
    baseline = pairs[0][1]
    names = {ids[run]: run for run, _b in pairs}
    load_pair_wanted(scope, measures)
    out: dict[tuple[str, str], float] = {}
    # report_runs holds the board's runs (leaderboard_page loaded it); report_wanted these measures
    for measure, run_id, p in db.run_file("reports/family_p_values.sql", {
            **test_settings(stats), "baseline_id": ids[baseline]}).fetchall():
        if run_id in names:
            out[(names[run_id], measure)] = math.nan if p is None else float(p)
    lacking = [] if len(out) == len(pairs) * len(measures) else [
        pair for pair in pairs if any((pair[0], m.name) not in out for m in measures)]
    if lacking:
        for row in tested_pairs(scope, lacking, measures, stats):
            if row.result is not None:
                out[(row.run, row.measure.name)] = row.result.p_value
    return out


def _page_scope(wh: Warehouse, qrels: str, measures: Sequence[str] | None, names: Sequence[str], settings: Settings,
                ids: dict[str, int], with_ties: bool) -> tuple[Scope, bool]:
    """load_scope(..., [COVERAGE_MEASURE], summary=False), with the runs' ids looked up once and
    the board's runs in report_runs (load_run_order): the scores missing are found by one query
    over report_runs (sql/reports/missing_board_scores.sql), with_ties also the primary measure's
    tie-order range, and only those are computed (ensure_scores). Also whether any was."""
    shown = _parse_measures(measures, settings.level)
    extra = [m for m in parse_all([COVERAGE_MEASURE]) if m.name not in {x.name for x in shown}]
    qrels_id = catalog.qrels_set_id(wh.db, qrels)
    wanted = shown + extra
    if with_ties and shown:
        wanted += tie_forms(shown[0], settings)
    entries = wanted_entries(wh, qrels_id, settings, wanted)
    evaluated = False
    if names and any(w["evaluation_id"] == -1 for w in entries.values()):
        ensure_scores(wh, qrels, qrels_id, names, wanted, settings, ids)
        evaluated = True
    elif names:
        wh.db.load_rows("report_wanted", WANTED_COLUMNS, [
            (w["evaluation_id"], w["stored"], w["measure"], w["position"]) for w in entries.values()])
        rows = wh.db.run_file("reports/missing_board_scores.sql").fetchall()
        if rows:
            by_id = {run_id: name for name, run_id in ids.items()}
            lacking = {measure for _r, measure in rows}
            missing_runs = list(dict.fromkeys(by_id[run_id] for run_id, _m in rows))
            ensure_scores(wh, qrels, qrels_id, missing_runs, [m for m in wanted if m.name in lacking], settings,
                          {name: ids[name] for name in missing_runs})
            evaluated = True
    return Scope(wh, qrels, qrels_id, settings, shown, wanted_entries(wh, qrels_id, settings, shown + extra), {}), evaluated


def _ranks_may_change(spans: dict[str, tuple[float, float]], runs: Sequence[str]) -> dict[str, bool]:
    """Whether each of these runs' rank could change under another order of tied documents, its
    own or another run's, over every run's range of the primary mean in spans. A rank counts the
    runs above (sql/reports/leaderboard.sql: rank() over the value rounded to 12 decimals), and each
    run's tie orders are its own, so any pair of values in two ranges can occur together: run A's
    rank may change when some other run B can be above it and can also not be (B's high end above
    A's low end, B's low end at or below A's high end, compared as the ranking rounds them: a run
    whose value equals the low end of another's range ties with it, and falls below it under
    another order). Over the ranges in order of their low ends, those starting at or below A's
    high end: the highest end among them (the second highest, where the highest is A's own) says
    whether one ends above A's low end."""
    rounded = {run: (round(low, RANK_DECIMALS), round(high, RANK_DECIMALS)) for run, (low, high) in spans.items()}
    ordered = sorted((low, high, run) for run, (low, high) in rounded.items())
    lows = [low for low, _high, _run in ordered]
    best: list[tuple[float, str | None]] = []  # (highest end, its run) of ordered[:k + 1]
    second: list[float] = []                   # the highest end of ordered[:k + 1] from another run
    for _low, high, run in ordered:
        top, top_run = best[-1] if best else (-math.inf, None)
        runner = second[-1] if second else -math.inf
        if high > top:
            best.append((high, run))
            second.append(top)
        else:
            best.append((top, top_run))
            second.append(max(runner, high))
    out = {}
    for run in runs:
        low, high = rounded[run]
        k = bisect.bisect_right(lows, high)  # the ranges starting at or below this one's high end
        top, top_run = best[k - 1]  # k >= 1: its own range is among them
        other = second[k - 1] if top_run == run else top
        out[run] = other > low
    return out


def shown_measure(shown: Sequence[Measure], name: str) -> Measure:
    for m in shown:
        if m.name == name:
            return m
    return parse_all([name])[0]
