"""A run's page: summary against a baseline, per-query values, the precision-recall curve and where
the relevant documents of one query were ranked.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from .. import charts
from ..core import Warehouse
from ..errors import NotFoundError
from ..evaluate import NO_DEPTH, Settings
from ..measures import Measure
from ..stats import StatsSettings
from ..table import Table, Tabular
from .display import plural, wins_ties_losses
from .footer import settings_items
from .pairs import PairRow, paired_rows, test_together
from .render import render
from .scope import (COVERAGE_MEASURE, Scope, load_scope, pr_curve_chart, pr_measures, require_runs, run_metadata,
                    tie_ranges)

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
    table = scope.sql("paired_scores", {"pairs": [{"pair": 0, "run_id": meta[run]["run_id"],
                                                   "baseline_id": meta[comparing or run]["run_id"]}],
                                        "wanted": scope.wanted_for(shown)})
    per_query: dict[str, dict[str, tuple[float | None, float | None]]] = {}
    for _pair, _position, measure, q, run_value, baseline_value in table.rows:
        per_query.setdefault(q, {})[measure] = (run_value, baseline_value)
    # the comparisons: the leaderboard's (same corrected p-values) or this page's own family
    if from_leaderboard is not None and comparing:
        pair_rows = [r for r in from_leaderboard.pair_rows if r.run == run]
        family_text = f"{from_leaderboard.family} (the leaderboard's family)"
        tested = from_leaderboard.tested
    elif comparing:
        pair_rows = paired_rows(scope, [(run, comparing)], shown)
        tested = test_together(pair_rows, stats).tested
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
            wtl = (f"{wins_ties_losses(primary_pair.result)} over {plural(len(primary_pair.queries), 'query', 'queries')}"
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
    table = scope.sql("relevant_ranks", {
        "qrels_set_id": scope.qrels_id, "query_id": query, "run_ids": [meta[n]["run_id"] for n in names],
        "level": s.level, "depth": s.depth or NO_DEPTH, "compat": s.compat, "judged_only": s.judged_only})
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
