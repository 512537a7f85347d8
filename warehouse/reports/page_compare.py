"""The compare page: a few runs side by side, a scatter per pair, the precision-recall curves."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from warehouse.store import catalog
from warehouse.reports import charts
from warehouse.evaluation.evaluator import Settings
from warehouse.evaluation.stats import StatsSettings
from warehouse.formats.table import Table, Tabular
from warehouse.reports.display import plural, wins_ties_losses
from warehouse.reports.footer import settings_items
from warehouse.reports.pairs import Comparison, PairRow, compare_scope, compared_runs
from warehouse.reports.render import render
from warehouse.reports.scope import (Scope, load_scope, pr_curve_chart, pr_measures, require_runs, run_metadata,
                                     testable)

if TYPE_CHECKING:  # annotations only: the reports take the Warehouse (warehouse/core.py) that calls them
    from warehouse.core import Warehouse


@dataclass
class ComparePage(Tabular):
    comparison: Comparison
    scope: Scope
    meta: dict[str, dict[str, Any]]
    means: dict[str, dict[str, tuple[float | None, int]]]   # run -> measure -> (mean over own queries, queries)
    scatters: list[tuple[PairRow, charts.ScatterChart]]
    difference: charts.BarChart | None
    pr_chart: charts.LineChart | None
    settings: list[tuple[str, str]]
    family: str

    @property
    def runs(self) -> list[str]:
        return list(self.meta)

    @property
    def show_system(self) -> bool:
        """The System column says something only when some run's system is not its own name."""
        return any(meta["system"] != run for run, meta in self.meta.items())

    def __repr__(self) -> str:
        # the page's own repr printed every scatter and chart; the comparison says what it is
        return f"<Compare page: {repr(self.comparison)[1:-1]}>"

    def table(self) -> Table:
        return self.comparison.table()


def compare_page(wh: Warehouse, runs: str | Sequence[str], qrels: str, measures: Sequence[str] | None = None, *,
                 systems: str | Sequence[str] | None = None, baseline: str | None = None,
                 settings: Settings | None = None, stats: StatsSettings | None = None) -> ComparePage:
    """A few runs side by side. runs and systems choose them as Warehouse.select_runs does (names
    and shell-style patterns, of these systems; the runs a pattern or system chose that qrels
    does not judge are left out: the comparison's `selection` says which)."""
    settings = settings or Settings()
    stats = stats or StatsSettings()
    selection = catalog.select_runs(wh.db, runs, systems=systems, qrels=qrels)
    catalog.require_baseline(wh.db, baseline, qrels)
    names = compared_runs(selection, baseline)
    require_runs(wh, names)
    scope = load_scope(wh, qrels, measures, names, settings, pr_measures())
    comparison = compare_scope(scope, names, baseline, stats, values=True)
    comparison.selection = selection
    meta = run_metadata(scope, names)
    means = {n: {m.name: scope.summary[(n, m.name)] for m in scope.measures if (n, m.name) in scope.summary}
             for n in names}
    primary = scope.primary.name
    scatters = []
    for row in comparison.rows:
        if row.measure.name != primary:
            continue
        r = row.result
        summary_text = (f"{r.wins} above the diagonal ({row.run} higher), {r.ties} on it, {r.losses} below, "
                        f"{plural(row.paired, 'query', 'queries')}" if r
                        else plural(row.paired, 'query', 'queries'))
        points = [(q, b, a) for q, a, b in zip(row.queries, row.run_values, row.baseline_values)]
        scatters.append((row, charts.scatter(points, title=f"{primary} per query: {row.run} against {row.baseline}",
                                             x_label=f"{row.baseline} {primary}", y_label=f"{row.run} {primary}",
                                             summary=summary_text)))
    difference = None
    if len(comparison.pairs) == 1:
        (row, _chart), = scatters
        r = row.result
        difference = charts.difference_bars(
            [(q, a - b) for q, a, b in zip(row.queries, row.run_values, row.baseline_values)],
            title=f"{primary}: {row.run} minus {row.baseline}, per query", y_label=f"\u0394 {primary}",
            x_label=f"queries by difference ({len(row.queries)})",
            summary=wins_ties_losses(r) if r else "")
    pr_chart = pr_curve_chart(scope, names, "11-point interpolated precision-recall")
    family_text = (f"over {plural(comparison.tested, 'comparison')}: "
                   f"{'every run against ' + baseline if baseline else 'all pairs of runs'} x "
                   f"{plural(sum(1 for m in scope.measures if testable(m)), 'measure')}")
    return ComparePage(comparison, scope, meta, means, scatters, difference, pr_chart,
                       settings_items(scope, stats, family_text), family_text)


def render_compare_page(page: ComparePage) -> str:
    return render("compare.html", page=page, title=f"Compare: {', '.join(page.runs)}", settings=page.settings)
