"""Paired comparisons: per-query values of run x baseline pairs, tested and corrected as one family
(warehouse.stats), and compare()'s result.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from .. import catalog
from ..core import Warehouse
from ..errors import UsageError
from ..evaluate import Settings
from ..measures import Measure
from ..stats import CORRECTIONS, Family, PairedResult, StatsSettings
from ..table import Table, Tabular
from .display import missing, plural
from .paper_tables import PaperTables
from .scope import Scope, higher_is_better, load_scope, require_runs, testable


@dataclass
class PairRow:
    """One run against one baseline on one measure, with the per-query values behind the test."""

    pair: int
    run: str
    baseline: str
    measure: Measure
    queries: list[str]            # paired: both runs were evaluated on them
    run_values: list[float]
    baseline_values: list[float]
    run_only: int                 # queries only the run was evaluated on
    baseline_only: int
    result: PairedResult | None = None
    p_adjusted: float = math.nan
    significant: bool = False

    @property
    def tested(self) -> bool:
        return self.result is not None and not math.isnan(self.result.p_value)

    @property
    def direction(self) -> str:
        """'better', 'worse' or '' (not significant), from the run's side, after correction."""
        if not self.significant or self.result is None:
            return ""
        better = self.result.diff > 0
        if higher_is_better(self.measure) is False:
            better = not better
        return "better" if better else "worse"

    @property
    def same_queries(self) -> bool:
        return self.run_only == 0 and self.baseline_only == 0


def paired_rows(scope: Scope, pairs: Sequence[tuple[str, str]], measures: Sequence[Measure]) -> list[PairRow]:
    ids = catalog.run_ids(scope.wh.db, dict.fromkeys(r for pair in pairs for r in pair))
    table = scope.sql("paired_scores", {
        "pairs": [{"pair": i, "run_id": ids[r], "baseline_id": ids[b]} for i, (r, b) in enumerate(pairs)],
        "wanted": scope.wanted_for(measures)})
    by_key: dict[tuple[int, str], PairRow] = {}
    for i, (run, baseline) in enumerate(pairs):
        for m in measures:
            by_key[(i, m.name)] = PairRow(i, run, baseline, m, [], [], [], 0, 0)
    for pair, _position, measure, query, run_value, baseline_value in table.rows:
        row = by_key[(pair, measure)]
        if run_value is None:
            row.baseline_only += 1
        elif baseline_value is None:
            row.run_only += 1
        else:
            row.queries.append(query)
            row.run_values.append(run_value)
            row.baseline_values.append(baseline_value)
    return [by_key[(i, m.name)] for m in measures for i in range(len(pairs))]


def test_together(rows: Sequence[PairRow], stats: StatsSettings) -> Family:
    """Tests every testable row and corrects them as one family; returns the family."""
    family = Family(stats)
    index_of = {}
    for row in rows:
        if testable(row.measure):
            index_of[id(row)] = family.add(row.run_values, row.baseline_values)
        else:
            row.result = None
    family.finish()
    for row in rows:
        if id(row) in index_of:
            k = index_of[id(row)]
            row.result = family.results[k]
            row.p_adjusted = family.adjusted[k]
            row.significant = family.significant(k)
    return family


@dataclass
class Comparison(PaperTables, Tabular):
    """The result of compare(): every measure x pair, tested and corrected together. As a table
    (to_pandas(), to_polars(), to_arrow(), Jupyter) one row per measure x pair; as a paper table
    to_latex() / to_markdown()."""

    qrels: str
    settings: Settings
    stats: StatsSettings
    measures: list[Measure]
    pairs: list[tuple[str, str]]
    baseline: str | None
    rows: list[PairRow]
    tested: int

    def table(self) -> Table:
        columns = ["measure", "run", "baseline", "queries", "run_mean", "baseline_mean", "diff", "ci_low",
                   "ci_high", "p", "p_adjusted", "significant", "wins", "ties", "losses"]
        out = []
        for row in self.rows:
            r = row.result if row.result is not None and row.result.n > 0 else None
            if r is None:
                values = [None] * 8
            else:
                values = [r.mean_a, r.mean_b, r.diff, r.ci_low, r.ci_high, r.p_value, row.p_adjusted,
                          row.significant]
                values = [None if missing(v) else v for v in values]
            out.append((row.measure.name, row.run, row.baseline, len(row.queries), *values,
                        *(3 * [None] if r is None else [r.wins, r.ties, r.losses])))
        return Table(columns, out)

    def paper_table(self):
        """The runs x measures table for a paper (warehouse/paper.py): to_latex / to_markdown."""
        from .. import paper

        return paper.from_comparison(self, higher_is_better)

    def notes(self) -> list[str]:
        """What a reader needs beside the numbers: settings, test, correction, query sets."""
        lines = [f"qrels {self.qrels}; {self.settings.describe()}",
                 f"test: {self.stats.describe_test()}; alpha {self.stats.alpha:g}",
                 f"confidence interval: {self.stats.describe_ci()}",
                 f"correction: {CORRECTIONS[self.stats.correction]} over {plural(self.tested, 'comparison')} "
                 f"({'every run against ' + self.baseline if self.baseline else 'all pairs'} x "
                 f"{plural(len(self.measures), 'measure')})",
                 "queries: each pair is tested over the queries both runs were evaluated on; "
                 "means are over those queries"]
        seen = set()
        for row in self.rows:
            if (row.run, row.baseline) in seen or row.same_queries:
                continue
            seen.add((row.run, row.baseline))
            lines.append(f"{row.run} vs {row.baseline}: {plural(len(row.queries), 'shared query', 'shared queries')} "
                         f"({row.run_only} only in {row.run}, {row.baseline_only} only in {row.baseline})")
        untested = sorted({row.measure.name for row in self.rows if row.result is None})
        if untested:
            lines.append(f"not tested (not a mean over queries): {', '.join(untested)}")
        return lines


def compare(wh: Warehouse, runs: Sequence[str], qrels: str, measures: Sequence[str] | None = None, *,
            baseline: str | None = None, settings: Settings | None = None,
            stats: StatsSettings | None = None) -> Comparison:
    """Paired tests of runs against a baseline (or of all pairs, each run against those named before
    it), on every measure, corrected for multiple testing across all of them."""
    names = compared_runs(runs, baseline)
    require_runs(wh, names)
    scope = load_scope(wh, qrels, measures, names, settings or Settings())
    return compare_scope(scope, names, baseline, stats or StatsSettings())


def compared_runs(runs: Sequence[str], baseline: str | None) -> list[str]:
    names = list(dict.fromkeys(([baseline] if baseline is not None else []) + list(runs)))
    if len(names) < 2:
        raise UsageError("compare needs at least two runs (or one run and --baseline)")
    return names


def compare_scope(scope: Scope, names: Sequence[str], baseline: str | None, stats: StatsSettings) -> Comparison:
    if baseline is not None:
        pairs = [(run, baseline) for run in names if run != baseline]
    else:
        pairs = [(names[j], names[i]) for i in range(len(names)) for j in range(i + 1, len(names))]
    rows = paired_rows(scope, pairs, scope.measures)
    family = test_together(rows, stats)
    return Comparison(scope.qrels, scope.settings, stats, scope.measures, pairs, baseline, rows, family.tested)
