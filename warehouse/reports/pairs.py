"""Paired comparisons: per-query values of run x baseline pairs, tested and corrected as one family
(warehouse.evaluation.stats), and compare()'s result.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from warehouse.store import catalog
from warehouse.errors import UsageError
from warehouse.evaluation.evaluator import Settings, one_measure_notes
from warehouse.evaluation.measures import Measure
from warehouse.evaluation.stats import (CORRECTIONS, METHOD, TESTS_SHORT, Family, PairedResult, StatsSettings,
                                        optimistic_marks, optimistic_said, paired_comparisons, unreachable_said)
from warehouse.formats.cells import listed_name, said_name
from warehouse.formats.escaping import shown
from warehouse.formats.table import Table, Tabular
from warehouse.reports.display import missing, plural
from warehouse.reports.paper_tables import PaperTables
from warehouse.reports.scope import WANTED_COLUMNS, Scope, higher_is_better, load_scope, require_runs, testable

if TYPE_CHECKING:  # annotations only: the reports take the Warehouse (warehouse/core.py) that calls them
    from warehouse.core import Warehouse


@dataclass
class PairRow:
    """One run against one baseline on one measure: the test's result and, when asked for, the
    per-query values behind it."""

    pair: int
    run: str
    baseline: str
    measure: Measure
    paired: int = 0               # queries both runs were evaluated on
    run_only: int = 0             # queries only the run was evaluated on
    baseline_only: int = 0
    result: PairedResult | None = None
    p_adjusted: float = math.nan
    significant: bool = False
    # the paired queries and both runs' values on them: read only by the pages that draw them
    queries: list[str] = field(default_factory=list)
    run_values: list[float] = field(default_factory=list)
    baseline_values: list[float] = field(default_factory=list)

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


PAIRS_PER_BLOCK = 1_000  # pairs whose per-query values tested_pairs holds at once (when it need not keep them)

# The temporary tables the report SQL reads its lists of records from (Database.load_rows).
PAIR_COLUMNS = [("pair", "integer"), ("run_id", "integer"), ("baseline_id", "integer")]
NEW_TEST_COLUMNS = [
    ("evaluation_id", "integer"), ("measure", "varchar"), ("run_id", "integer"), ("baseline_id", "integer"),
    ("run_scores_at", "timestamp"), ("run_queries", "integer"), ("baseline_scores_at", "timestamp"),
    ("baseline_queries", "integer"), ("queries", "integer"), ("run_only", "integer"), ("baseline_only", "integer"),
    ("run_mean", "double"), ("baseline_mean", "double"), ("diff", "double"), ("ci_low", "double"),
    ("ci_high", "double"), ("statistic", "double"), ("p_value", "double"), ("wins", "integer"), ("ties", "integer"),
    ("losses", "integer"), ("exact", "boolean")]


def load_wanted(scope: Scope, measures: Sequence[Measure]) -> None:
    """report_wanted: where each measure's stored scores are (evaluation, stored name), and its position."""
    load_wanted_entries(scope, scope.wanted_for(measures))


def load_wanted_entries(scope: Scope, entries: Sequence[dict[str, Any]]) -> None:
    """report_wanted from entries of Scope.wanted (scope.wanted_entries), positions in the order given."""
    scope.wh.db.load_rows("report_wanted", WANTED_COLUMNS, [
        (w["evaluation_id"], w["stored"], w["measure"], position) for position, w in enumerate(entries)])


def _test_settings(stats: StatsSettings) -> dict[str, Any]:
    """What a stored result is keyed by besides the scores: the t-test uses no seed or resamples."""
    random = stats.test != "ttest"
    return {"test": stats.test, "seed": stats.seed if random else 0,
            "permutations": stats.permutations if random else 0, "alpha": stats.alpha, "method": METHOD}


def tested_pairs(scope: Scope, pairs: Sequence[tuple[str, str]], measures: Sequence[Measure], stats: StatsSettings,
                 *, values: bool = False) -> list[PairRow]:
    """Every pair x measure, measure by measure: the results of the tests stored for the runs'
    current scores and these settings are read (sql/reports/stored_tests.sql), the missing ones
    are computed together (stats.paired_comparisons) and stored; measures that are not means are
    not tested. values: read every pair's per-query values too (pages that draw them)."""
    db = scope.wh.db
    ids = catalog.run_ids(db, dict.fromkeys(r for pair in pairs for r in pair))
    rows = {(i, m.name): PairRow(i, run, baseline, m) for m in measures for i, (run, baseline) in enumerate(pairs)}
    order = [rows[(i, m.name)] for m in measures for i in range(len(pairs))]
    if not pairs:
        return order
    testable_measures = [m for m in measures if testable(m)]
    by_ids = {(ids[run], ids[baseline]): i for i, (run, baseline) in enumerate(pairs)}
    settings = _test_settings(stats)
    run_ids = sorted({ids[r] for r, _ in pairs})
    baseline_ids = sorted({ids[b] for _, b in pairs})
    if testable_measures:
        load_wanted(scope, testable_measures)
        stored = scope.sql("stored_tests", {**settings, "run_ids": run_ids, "baseline_ids": baseline_ids})
        for measure, run_id, baseline_id, paired, run_only, baseline_only, *numbers in stored.rows:
            i = by_ids.get((run_id, baseline_id))
            if i is not None:
                row = rows[(i, measure)]
                row.paired, row.run_only, row.baseline_only = paired, run_only, baseline_only
                row.result = _result(paired, numbers)
    # per-query values: of the pairs still to test, of the measures not tested (their query
    # counts), or of everything when the page draws them
    need = {key for key, row in rows.items() if values or row.result is None}
    # read, tested and stored PAIRS_PER_BLOCK pairs at a time unless the values are kept: the values
    # of every pair at once held a tuple and three floats per pair x measure x query in Python
    # (10,000 runs against a baseline on 3 measures over 50 queries: 1.5M of each, ~0.5 GB). A
    # comparison's result does not depend on the others tested with it (stats.paired_comparisons).
    # A block's runs are runs stored together (in run id order), so DuckDB reads only their part of scores
    by_id = sorted(range(len(pairs)), key=lambda i: ids[pairs[i][0]])
    block_size = len(pairs) if values else PAIRS_PER_BLOCK
    for start in range(0, len(pairs), block_size):
        members = set(by_id[start:start + block_size])
        block = {key for key in need if key[0] in members}
        if block:
            _read_values(scope, pairs, ids, rows, block)
        missing = [row for row in order if row.pair in members and row.result is None and testable(row.measure)]
        if missing:
            results = paired_comparisons([(row.run_values, row.baseline_values) for row in missing], stats)
            for row, result in zip(missing, results):
                row.result = result
            if not db.read_only:
                _store(scope, missing, ids, settings)
        if not values:
            for key in block:  # read only to test them
                row = rows[key]
                row.queries, row.run_values, row.baseline_values = [], [], []
    return order


def _result(paired: int, numbers: Sequence[Any]) -> PairedResult:
    run_mean, baseline_mean, diff, ci_low, ci_high, statistic, p_value, wins, ties, losses, exact = numbers
    nan = math.nan
    floats = [nan if v is None else float(v) for v in (run_mean, baseline_mean, diff, ci_low, ci_high, statistic,
                                                         p_value)]
    if not all(math.isfinite(v) for v in floats[:2]):
        # a mean over a NaN or infinite value: no test (stats.paired_comparisons), also where an
        # irw before it stored one that called every query a loss and the difference significant
        return PairedResult(paired, *([nan] * 7), 0, 0, 0)
    return PairedResult(paired, *floats, int(wins), int(ties), int(losses), bool(exact))


def _read_values(scope: Scope, pairs, ids, rows, need) -> None:
    """The per-query values of the (pair, measure) rows in need (sql/reports/paired_scores.sql)."""
    wanted_pairs = sorted({i for i, _m in need})
    measures = [m for m in dict.fromkeys(rows[key].measure for key in sorted(need, key=lambda k: k[0]))]
    db = scope.wh.db
    load_wanted(scope, measures)
    db.load_rows("report_pairs", PAIR_COLUMNS, [(i, ids[pairs[i][0]], ids[pairs[i][1]]) for i in wanted_pairs])
    table = scope.sql("paired_scores", {})
    for pair, _position, measure, query, run_value, baseline_value in table.rows:
        row = rows.get((pair, measure))
        if row is None or (pair, measure) not in need:
            continue
        if run_value is None:
            row.baseline_only += 1
        elif baseline_value is None:
            row.run_only += 1
        else:
            row.queries.append(query)
            row.run_values.append(run_value)
            row.baseline_values.append(baseline_value)
    for key in need:
        row = rows[key]
        row.paired = len(row.queries)


def _store(scope: Scope, rows: Sequence[PairRow], ids: dict[str, int], settings: dict[str, Any]) -> None:
    """The results just computed, keyed by the scores they were computed from (the runs'
    `evaluated` rows): stored once, whoever stores them first (insert ... on conflict do nothing)."""
    db = scope.wh.db
    measures = list(dict.fromkeys(row.measure for row in rows))
    load_wanted(scope, measures)
    versions = {(run_id, measure): (computed_at, queries) for _e, run_id, measure, queries, computed_at in
                scope.sql("score_versions", {"run_ids": sorted({ids[r.run] for r in rows} |
                                                              {ids[r.baseline] for r in rows})}).rows}
    new = []
    for row in rows:
        run = versions.get((ids[row.run], row.measure.name))
        base = versions.get((ids[row.baseline], row.measure.name))
        if run is None or base is None:
            continue  # scores without bookkeeping (never irw's own): nothing to key the result by
        w = scope.wanted[row.measure.name]
        r = row.result
        new.append((w["evaluation_id"], w["stored"], ids[row.run], ids[row.baseline], run[0], run[1], base[0],
                    base[1], r.n, row.run_only, row.baseline_only, *[None if math.isnan(v) else v for v in (
                        r.mean_a, r.mean_b, r.diff, r.ci_low, r.ci_high, r.statistic, r.p_value)],
                    r.wins, r.ties, r.losses, r.exact))
    if not new:
        return
    with db.transaction():
        db.load_rows("report_new_tests", NEW_TEST_COLUMNS, new)
        db.run_file("reports/store_tests.sql", settings)


def correct_together(rows: Sequence[PairRow], stats: StatsSettings) -> Family:
    """Corrects the tested rows as one family (warehouse.evaluation.stats.correct); returns the family."""
    tested = [row for row in rows if row.result is not None]
    family = Family(stats, [row.result for row in tested])
    family.finish()
    for k, row in enumerate(tested):
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
    selection: Any = None  # the runs chosen (catalog.RunSelection), and those left out
    # (run, measure) -> (its mean, its queries) over the run's own queries, read where a pair was
    # tested over fewer queries than one of its runs has (the paper table's means; else the tests')
    own_means: dict = field(default_factory=dict)
    # what is said of names given for one measure (`-m map -m AP`): one row (evaluator.one_measure_notes)
    same_measure_notes: list[str] = field(default_factory=list)

    def table(self) -> Table:
        columns = ["measure", "run", "baseline", "queries", "run_mean", "baseline_mean", "diff", "ci_low",
                   "ci_high", "p", "p_adjusted", "significant", "wins", "ties", "losses"]
        out = []
        for row in self.rows:
            r = row.result if row.result is not None and row.result.n > 0 else None
            if r is None:
                values = [None] * 8
            else:
                # a pair not tested (a value that is no number) is neither significant nor not
                values = [r.mean_a, r.mean_b, r.diff, r.ci_low, r.ci_high, r.p_value, row.p_adjusted,
                          None if missing(r.p_value) else row.significant]
                values = [None if missing(v) else v for v in values]
            # a pair with a value that is no number has no order, so no wins, ties or losses
            counted = r is not None and not missing(r.mean_a)
            out.append((row.measure.name, row.run, row.baseline, row.paired, *values,
                        *([r.wins, r.ties, r.losses] if counted else 3 * [None])))
        return Table(columns, out)

    def __repr__(self) -> str:
        # the dataclass's own repr printed every Measure, Settings and PairRow: 30,828 characters
        # for 6 runs x 2 measures; as Evaluation's (warehouse/evaluation/evaluator.py), what it is
        runs = list(dict.fromkeys(name for pair in self.pairs for name in pair))
        against = f"against baseline {said_name(self.baseline)}" if self.baseline is not None else "all pairs"
        return (f"<Comparison of {plural(len(runs), 'run')} ({against}) on qrels {said_name(self.qrels)}: "
                f"{measure_names(self.measures)}; {plural(self.tested, 'comparison')}, "
                f"{correction_said(self.stats.correction)}; {self.settings.describe()}>")

    def paper_table(self):
        """The runs x measures table for a paper (warehouse/reports/paper.py): to_latex / to_markdown."""
        from warehouse.reports import paper

        return paper.from_comparison(self, higher_is_better)

    def notes(self) -> list[str]:
        """What a reader needs beside the numbers: settings, test, correction, query sets."""
        from warehouse.evaluation.evaluator import measure_notes

        lines = [f"qrels {self.qrels}; {self.settings.describe()}", *self.same_measure_notes,
                 *measure_notes(self.measures, self.settings),
                 f"test: {self.stats.describe_test()}; alpha {self.stats.alpha:g}",
                 f"confidence interval: {self.stats.describe_ci()}",
                 self._correction_note(),
                 "queries: each pair is tested over the queries both runs were evaluated on; "
                 "means are over those queries"]
        seen = set()
        for row in self.rows:
            if (row.run, row.baseline) in seen or row.same_queries:
                continue
            seen.add((row.run, row.baseline))
            lines.append(f"{row.run} vs {row.baseline}: {plural(row.paired, 'shared query', 'shared queries')} "
                         f"({row.run_only} only in {row.run}, {row.baseline_only} only in {row.baseline})")
        untested = sorted({row.measure.name for row in self.rows if row.result is None})
        if untested:
            lines.append(f"not tested (not a mean over queries): {', '.join(untested)}")
        one_query = list(dict.fromkeys(f"{row.measure.name} of {row.run} vs {row.baseline}" for row in self.rows
                                       if row.result is not None and row.result.n == 1 and missing(row.result.p_value)
                                       and math.isfinite(row.result.mean_a) and math.isfinite(row.result.mean_b)))
        if one_query:
            # the t-test and the bootstrap test no pair over one query (stats.paired_comparisons): its
            # p was blank with nothing said (a walk)
            pairs_said = ", ".join(one_query[:5]) + (f" and {len(one_query) - 5} more" if len(one_query) > 5 else "")
            lines.append(f"not tested (one shared query; the {TESTS_SHORT[self.stats.test]} needs two): {pairs_said}")
        if optimistic := optimistic_marks(self.rows, self.stats):
            lines.append(optimistic_said(optimistic, self.stats))
        if unreachable := unreachable_said(self.tested, self.stats):
            lines.append(unreachable)
        lines += self._undefined_means()
        return lines

    def _correction_note(self) -> str:
        """The family corrected together: the pairs of the measures that are tested (means over
        queries), not of every measure chosen (compare_scope refuses a comparison with none)."""
        tested_measures = [m for m in self.measures if testable(m)]
        # a measure none of whose pairs has a p (a value that is no number on every pair) is not in
        # the family: "over 1 comparison (every run against BM25 x 2 measures)" read as a contradiction
        with_p = {row.measure.name for row in self.rows if row.result is not None and not missing(row.result.p_value)}
        measures = len(with_p) if with_p else len(tested_measures)
        return (f"correction: {CORRECTIONS[self.stats.correction]} over {plural(self.tested, 'comparison')} "
                f"({'every run against ' + self.baseline if self.baseline else 'all pairs'} x "
                f"{plural(measures, 'measure')})")

    def _undefined_means(self) -> list[str]:
        """Why a pair of a testable measure was not tested although its runs share queries: a
        query's score that is no number (0/0, trec_eval's -nan) leaves its run's mean undefined,
        as trec_eval's own mean is then, and a test of it would be a test of nothing."""
        from warehouse.formats.escaping import shell_command

        lines = []
        for row in self.rows:
            r = row.result
            if r is None or r.n == 0:
                continue
            for name, mean in ((row.run, r.mean_a), (row.baseline, r.mean_b)):
                if not math.isfinite(mean):
                    command = shell_command(["irw", "eval", "--qrels", self.qrels, "-q", "-m", row.measure.name,
                                             *self.settings.options], [name])
                    lines.append(f"not tested: {row.measure.name} of {row.run} vs {row.baseline}: {name}'s score is "
                                 "not a number on some query (0/0, trec_eval's -nan), so its mean is undefined; "
                                 f"`{command}` shows which")
                    break
        return lines


def measure_names(measures: Sequence[Measure], listed: int = 8) -> str:
    """The measures as a repr names them: the first few, and how many more."""
    names = [shown(m.name) for m in measures]
    if len(names) <= listed + 1:
        return ", ".join(names)
    return f"{', '.join(names[:listed])} and {len(names) - listed} more"


def correction_said(correction: str) -> str:
    """A correction as a repr says it, by the name compare() takes: `holm correction`, `no correction`."""
    return "no correction" if correction == "none" else f"{correction} correction"


def compare(wh: Warehouse, runs: str | Sequence[str] | None, qrels: str, measures: Sequence[str] | None = None, *,
            systems: str | Sequence[str] | None = None, baseline: str | None = None,
            settings: Settings | None = None, stats: StatsSettings | None = None,
            values: bool = False) -> Comparison:
    """Paired tests of runs against a baseline (or of all pairs, each run against those named before
    it), on every measure, corrected for multiple testing across all of them. Results stored by an
    earlier report are read, not computed again. values: each row also holds the paired queries and
    both runs' values on them (PairRow.queries, run_values, baseline_values).

    runs and systems choose the runs as Warehouse.select_runs does: names and shell-style patterns
    (None: every stored run), of these systems; runs a pattern, system or the default chose that
    qrels does not judge are left out (Comparison.selection says which)."""
    selection = catalog.select_runs(wh.db, runs, systems=systems, qrels=qrels)
    catalog.require_baseline(wh.db, baseline, qrels)
    names = compared_runs(selection, baseline)
    require_runs(wh, names)
    # the means come with the tests (over the paired queries): no run's summary is read
    scope = load_scope(wh, qrels, measures, names, settings or Settings(), summary=False)
    comparison = compare_scope(scope, names, baseline, stats or StatsSettings(), values=values)
    comparison.same_measure_notes = one_measure_notes(measures or (), scope.settings)
    comparison.selection = selection
    if any(not row.same_queries for row in comparison.rows if row.result is not None):
        # a test's means are over the queries its two runs share, so a run's would be that of the
        # first pair it is in, and a paper table's cell would change with the order the runs are
        # named (a walk: REP_LLAMA 0.6969 beside a run of 20 queries, 0.7384 named first)
        tested = [m for m in scope.measures if testable(m)]
        summary = wh.evaluate(names, qrels, tested, settings=scope.settings).summary
        comparison.own_means = {(run, measure): (value, queries)
                                for run, measure, value, _micro, queries in summary.rows}
    return comparison


# The most pairs a comparison without a baseline tests (every pair of about 450 runs): a walk's
# `irw compare -m AP` over 10,000 stored runs set out to test 49,995,000 pairs and held 16 GB after
# two minutes, and irw serve's compare page without run= did the same in the server.
MAX_ALL_PAIRS = 100_000


def compared_runs(runs: Sequence[str], baseline: str | None) -> list[str]:
    """The runs compared, the baseline first: at least two, else a UsageError saying why. When the
    only run chosen is the baseline itself, it says so (not "one run and --baseline", which was
    given), in words a Python caller of compare() reads too."""
    names = list(dict.fromkeys(([baseline] if baseline is not None else []) + list(runs)))
    if len(names) < 2:
        if baseline is not None and names == [baseline]:
            left_out = getattr(runs, "notes", lambda: [])()  # a RunSelection: the runs --qrels left out
            why = f" ({left_out[0]})" if left_out else ""
            raise UsageError(f"compare needs a run besides the baseline: {listed_name(baseline)} is the only run "
                             f"chosen{why}, and it is the baseline itself; name another run to compare with it")
        chose = f": {names[0]} is the only run chosen" if names else ""
        raise UsageError(f"compare needs at least two runs (or one run and --baseline){chose}")
    every_pair = len(names) * (len(names) - 1) // 2
    if baseline is None and every_pair > MAX_ALL_PAIRS:
        raise UsageError(f"compare without --baseline tests every pair of the {len(names):,} runs chosen: "
                         f"{every_pair:,} pairs, more than the {MAX_ALL_PAIRS:,} irw tests in one comparison; name a "
                         f"--baseline (each run against it: {len(names) - 1:,} pairs), or fewer runs (names, a pattern, "
                         "--system)")
    return names


def compare_scope(scope: Scope, names: Sequence[str], baseline: str | None, stats: StatsSettings, *,
                  values: bool = False) -> Comparison:
    if scope.measures and not any(testable(m) for m in scope.measures):
        # every row would be blank: a comparison that tests nothing is no result
        several = len(scope.measures) > 1
        raise UsageError(f"a comparison tests means over queries, and "
                         f"{'no measure chosen is one' if several else 'the measure chosen is not one'} "
                         f"({', '.join(m.name for m in scope.measures)}): evaluate {'them' if several else 'it'} "
                         "instead, or compare on a mean such as AP or nDCG@10")
    if baseline is not None:
        pairs = [(run, baseline) for run in names if run != baseline]
    else:
        pairs = [(names[j], names[i]) for i in range(len(names)) for j in range(i + 1, len(names))]
    rows = tested_pairs(scope, pairs, scope.measures, stats, values=values)
    family = correct_together(rows, stats)
    return Comparison(scope.qrels, scope.settings, stats, scope.measures, pairs, baseline, rows, family.tested)
