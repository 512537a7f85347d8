"""A run's page: summary against a baseline, per-query values, the precision-recall curve and where
the relevant documents of one query were ranked.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Sequence

from .. import charts
from ..core import Warehouse
from ..errors import NotFoundError
from ..evaluate import NO_DEPTH, Settings
from ..measures import Measure, parse_all, tie_variant
from ..stats import StatsSettings
from ..table import Table, Tabular
from .display import plural, wins_ties_losses
from .footer import settings_items
from .files import page_key
from .pairs import PAIR_COLUMNS, PairRow, correct_together, load_wanted, load_wanted_entries, tested_pairs
from .render import render
from .scope import (COVERAGE_MEASURE, Scope, load_run_order, load_scope, pr_curve_chart, pr_measures, require_runs,
                    run_metadata, tie_ranges, wanted_entries)

if TYPE_CHECKING:
    from .page_leaderboard import Leaderboard


@dataclass
class QueryRow:
    query: str
    values: list[float | None]
    baseline_value: float | None
    delta: float | None
    tie_range: tuple[float, float] | None = None  # the primary measure's lowest and highest over tie orders


@dataclass
class RankRow:
    doc: str
    grade: int
    rank: int | None
    baseline_rank: int | None


@dataclass
class RunPage(Tabular):
    scope: Scope
    stats: StatsSettings
    run: str
    meta: dict[str, Any]
    baseline: str | None
    baseline_meta: dict[str, Any] | None
    summary: list[tuple[Measure, float | None, PairRow | None]]
    queries: list[QueryRow]
    difference_chart: charts.BarChart | None
    pr_chart: charts.LineChart | None
    query: str | None
    query_reason: str
    relevant: list[RankRow]
    retrieved: int
    baseline_retrieved: int | None
    strip: charts.RankStrip | None
    settings: list[tuple[str, str]]
    family: str
    leaderboard_family: bool
    tie_spread: bool = False    # some query's primary value depends on the order of tied documents

    def table(self) -> Table:
        """Per-query values as data (irw report run --format json|csv|...)."""
        return _run_page_table(self)


def _run_page_table(page: "RunPage") -> Table:
    primary = page.scope.primary.name
    columns = ["query", *[m.name for m in page.scope.measures]]
    if page.baseline:
        columns += [f"{page.baseline} {primary}", f"delta_{primary}"]
    rows = [(q.query, *q.values, *([q.baseline_value, q.delta] if page.baseline else [])) for q in page.queries]
    return Table(columns, rows)


def run_page(wh: Warehouse, run: str, qrels: str, measures: Sequence[str] | None = None, *,
             baseline: str | None = None, query: str | None = None, settings: Settings | None = None,
             stats: StatsSettings | None = None, from_leaderboard: Leaderboard | None = None) -> RunPage:
    """One run: metadata, summary against the baseline, per-query values and differences, the
    11-point precision-recall curve, and where the relevant documents of one query were ranked."""
    settings = settings or Settings()
    stats = stats or StatsSettings()
    if baseline == run:
        comparing = None
    else:
        comparing = baseline
    names = [run] + ([comparing] if comparing else [])
    require_runs(wh, names)
    scope = load_scope(wh, qrels, measures, names, settings, [COVERAGE_MEASURE] + pr_measures())
    shown = scope.measures
    meta = run_metadata(scope, names)
    load_wanted(scope, shown)
    scope.wh.db.load_rows("report_pairs", PAIR_COLUMNS, [(0, meta[run]["run_id"], meta[comparing or run]["run_id"])])
    table = scope.sql("paired_scores", {})
    per_query: dict[str, dict[str, tuple[float | None, float | None]]] = {}
    for _pair, _position, measure, q, run_value, baseline_value in table.rows:
        per_query.setdefault(q, {})[measure] = (run_value, baseline_value)
    # the comparisons: this run against the baseline on every measure, corrected over this page's
    # own family. A page written with a leaderboard takes the board's results, and corrects them so
    # too: the board's correction changes with every run added, this page only with its own runs.
    if comparing:
        if from_leaderboard is not None:
            pair_rows = [replace(r) for r in from_leaderboard.pair_rows if r.run == run]
        else:
            pair_rows = tested_pairs(scope, [(run, comparing)], shown, stats)
        tested = correct_together(pair_rows, stats).tested
        family_text = f"over {plural(tested, 'comparison')}: {run} against {comparing} x {plural(tested, 'measure')}"
    else:
        pair_rows, family_text = [], "no comparisons"
    by_measure = {r.measure.name: r for r in pair_rows}
    summary = [(m, scope.summary.get((run, m.name), (None, 0))[0], by_measure.get(m.name)) for m in shown]
    primary = scope.primary.name
    query_rows = []
    for q in sorted(per_query):
        values = per_query[q]
        run_primary, base_primary = values.get(primary, (None, None))
        if run_primary is None:
            continue  # a query only the baseline was evaluated on
        delta = run_primary - base_primary if comparing and base_primary is not None else None
        query_rows.append(QueryRow(q, [values.get(m.name, (None, None))[0] for m in shown],
                                   base_primary if comparing else None, delta))
    spreads = tie_ranges(wh, qrels, scope.primary, [run], settings, per_query=True)
    for row in query_rows:
        row.tie_range = spreads.get((run, row.query))
    difference_chart = None
    if comparing:
        diffs = [(r.query, r.delta) for r in query_rows if r.delta is not None]
        if diffs:
            primary_pair = by_measure.get(primary)
            wtl = (f"{wins_ties_losses(primary_pair.result)} over {plural(primary_pair.paired, 'query', 'queries')}"
                   if primary_pair and primary_pair.result else "")
            difference_chart = charts.difference_bars(
                diffs, title=f"{primary}: {run} minus {comparing}, per query", y_label=f"\u0394 {primary}",
                x_label=f"queries, sorted by difference ({len(diffs)})", summary=wtl)
    pr_chart = pr_curve_chart(scope, names, f"11-point interpolated precision-recall: {', '.join(names)}")
    relevance = {r[0]: r[2] for r in scope.sql("query_relevance", {"qrels_set_id": scope.qrels_id,
                                                                   "level": settings.level}).rows}
    chosen, reason = _choose_query(query, query_rows, relevance, comparing, primary)
    relevant, retrieved, baseline_retrieved, strip = [], 0, None, None
    if chosen is not None:
        relevant, retrieved, baseline_retrieved, strip = _relevant_ranks(scope, meta, run, comparing, chosen)
    return RunPage(scope, stats, run, meta[run], comparing, meta.get(comparing) if comparing else None, summary,
                   query_rows, difference_chart, pr_chart, chosen, reason, relevant, retrieved, baseline_retrieved,
                   strip, settings_items(scope, stats if comparing else None, family_text), family_text,
                   from_leaderboard is not None,
                   any(r.tie_range is not None and r.tie_range[1] - r.tie_range[0] > 1e-12 for r in query_rows))


def run_page_keys(board: "Leaderboard", leaderboard_href: str) -> dict[str, str]:
    """The key (files.page_key) of each run page a leaderboard writes: over everything run_page
    reads for it (the run's and the baseline's metadata and stored-score versions of every measure
    the page shows, the qrels set, the settings and tests, the link back), read for every run at
    once. A page's correction is over its own comparisons, so nothing of the other runs is in it."""
    scope = board.scope
    wh = scope.wh
    names = [row.run for row in board.rows]
    meta = run_metadata(scope, names)
    primary = scope.primary
    ties = [m for m in (tie_variant(primary, "min"), tie_variant(primary, "max")) if m is not None]
    page_measures = [m for m in parse_all(list(scope.wanted))] + ties
    wanted = wanted_entries(wh, scope.qrels_id, scope.settings, page_measures)
    load_wanted_entries(scope, [wanted[m.name] for m in page_measures])
    versions: dict[int, list] = {}
    for evaluation_id, run_id, measure, queries, computed_at in scope.sql(
            "score_versions", {"run_ids": [m["run_id"] for m in meta.values()]}).rows:
        versions.setdefault(run_id, []).append((evaluation_id, measure, queries, computed_at))
    s = scope.settings
    qrels = scope.sql("qrels_summary", {"qrels_set_id": scope.qrels_id, "level": s.level}).to_dicts()
    common = {"qrels": qrels, "settings": s.key, "measures": [m.name for m in scope.measures],
              "page measures": sorted(wanted.items()), "stats": board.stats, "baseline": board.baseline,
              "leaderboard": leaderboard_href}
    base = meta.get(board.baseline) if board.baseline else None
    base_inputs = (base, versions.get(base["run_id"], [])) if base else None
    return {name: page_key({**common, "run": meta[name], "versions": versions.get(meta[name]["run_id"], []),
                            "baseline run": base_inputs if name != board.baseline else None})
            for name in names}


def _choose_query(query: str | None, rows: Sequence[QueryRow], relevance: dict[str, int], baseline: str | None,
                  primary: str) -> tuple[str | None, str]:
    if query is not None:
        if query not in relevance:
            raise NotFoundError(f"query {query!r} is not in the qrels set")
        return query, "chosen with --query"
    candidates = [r for r in rows if relevance.get(r.query, 0) > 0]
    if not candidates:
        return None, ""
    if baseline:
        with_delta = [r for r in candidates if r.delta is not None]
        if with_delta:
            pick = min(with_delta, key=lambda r: (r.delta, r.query))
            return pick.query, f"the query where this run loses most to {baseline} on {primary} (choose with --query)"
    pick = min(candidates, key=lambda r: (r.values[0] if r.values[0] is not None else math.inf, r.query))
    return pick.query, f"this run's lowest {primary} among queries with a relevant document (choose with --query)"


def _relevant_ranks(scope: Scope, meta: dict[str, dict[str, Any]], run: str, baseline: str | None, query: str):
    s = scope.settings
    names = [run] + ([baseline] if baseline else [])
    load_run_order(scope.wh, [meta[n]["run_id"] for n in names])
    table = scope.sql("relevant_ranks", {
        "qrels_set_id": scope.qrels_id, "query_id": query, "level": s.level, "depth": s.depth or NO_DEPTH,
        "compat": s.compat, "judged_only": s.judged_only})
    by_run: dict[int, list[tuple[str, int, int | None]]] = {}
    retrieved: dict[int, int] = {}
    for run_id, doc, grade, rank, count in table.rows:
        by_run.setdefault(run_id, []).append((doc, grade, rank))
        retrieved[run_id] = count
    run_docs = by_run.get(meta[run]["run_id"], [])
    base_docs = {doc: rank for doc, _g, rank in by_run.get(meta[baseline]["run_id"], [])} if baseline else {}
    rows = [RankRow(doc, grade, rank, base_docs.get(doc)) for doc, grade, rank in run_docs]
    strip_rows = [(name, by_run.get(meta[name]["run_id"], []), retrieved.get(meta[name]["run_id"], 0))
                  for name in names]
    strip = charts.rank_strip(strip_rows, title=f"ranks of the relevant documents of query {query}") if rows else None
    return (rows, retrieved.get(meta[run]["run_id"], 0),
            retrieved.get(meta[baseline]["run_id"], 0) if baseline else None, strip)


def render_run_page(page: RunPage, leaderboard_href: str | None = None) -> str:
    return render("run.html", page=page, title=f"Run {page.run}", leaderboard_href=leaderboard_href,
                  settings=page.settings)
