"""A run's page: summary against a baseline, per-query values, the precision-recall curve and where
the relevant documents of one query were ranked.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from warehouse.reports import charts
from warehouse.errors import NotFoundError, ReadOnlyError
from warehouse.evaluation.evaluator import NO_DEPTH, Settings
from warehouse.evaluation.measures import Measure, parse_all
from warehouse.evaluation.stats import StatsSettings
from warehouse.formats.cells import said_name
from warehouse.formats.table import Table, Tabular
from warehouse.evaluation.measures import not_means
from warehouse.reports.display import plural, wins_ties_losses
from warehouse.reports.footer import settings_items
from warehouse.reports.files import page_key
from warehouse.reports.pairs import (PAIR_COLUMNS, PairRow, correct_together, load_wanted, load_wanted_entries,
                                     measure_names, tested_pairs)
from warehouse.reports.render import render
from warehouse.reports.scope import (COVERAGE_MEASURE, Scope, ensure_scores, load_run_order, load_scope,
                                     pr_curve_chart, pr_curves, pr_measures, require_runs, run_metadata,
                                     tie_forms, tie_forms_left_out, wanted_entries)

if TYPE_CHECKING:
    from warehouse.core import Warehouse
    from warehouse.reports.page_leaderboard import Leaderboard


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
    ties_note: str = ""         # why the range over tie orders is left out, where the settings refuse it

    @property
    def not_means(self) -> str:
        """What the measures that are not means over queries are (measures.not_means), for the page's note."""
        return not_means(self.scope.measures)

    @property
    def relevant_grades(self) -> str:
        """How the query's relevant documents are counted where the primary measure's level is not
        the evaluation's ('' where it is): `grade >= 2, as AP(rel=2) reads them`."""
        level = relevant_level(self.scope)
        if level == self.scope.settings.level:
            return ""
        return f"grade >= {level}, as {self.scope.primary.name} reads them"

    def __repr__(self) -> str:
        # the dataclass's own repr printed every query row, chart and Measure; as Leaderboard's
        against = f"baseline {said_name(self.baseline)}" if self.baseline else "no baseline"
        return (f"<Run page of {said_name(self.run)} on qrels {said_name(self.scope.qrels)}: "
                f"{measure_names(self.scope.measures)}; {against}; "
                f"{plural(len(self.queries), 'query', 'queries')}; {self.scope.settings.describe()}>")

    def table(self) -> Table:
        """Per-query values as data (irw report run --format json|csv|...)."""
        return _run_page_table(self)

    def relevant_table(self) -> Table:
        """The page's query's relevant documents, their grades and where the run (and the baseline)
        ranked them (null: not retrieved), as the page lists them: what `irw report run --query Q`
        gives in a data format, the page's drill-down as data."""
        columns = ["query", "doc", "grade", "rank", *([f"{self.baseline} rank"] if self.baseline else [])]
        rows = [(self.query, r.doc, r.grade, r.rank, *([r.baseline_rank] if self.baseline else []))
                for r in self.relevant]
        return Table(columns, rows)


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
    11-point precision-recall curve, and where the relevant documents of one query were ranked.
    from_leaderboard: the page as that leaderboard writes it (board_run_pages)."""
    if from_leaderboard is not None:
        return next(board_run_pages(from_leaderboard, [run], query=query))
    settings = settings or Settings()
    stats = stats or StatsSettings()
    comparing = None if baseline == run else baseline
    names = [run] + ([comparing] if comparing else [])
    require_runs(wh, names, qrels)
    scope = load_scope(wh, qrels, measures, names, settings, [COVERAGE_MEASURE] + pr_measures())
    inputs = PageInputs.read(scope, [(run, comparing)], run_metadata(scope, names))
    pair_rows = tested_pairs(scope, [(run, comparing)], scope.measures, stats) if comparing else []
    return _page(inputs, stats, run, comparing, pair_rows, query, from_leaderboard=False)


def board_run_pages(board: "Leaderboard", runs: Sequence[str], *, query: str | None = None,
                    batch: int = 100) -> Iterator[RunPage]:
    """The pages of these runs of a leaderboard, in order, as run_page makes them, read batch runs
    at a time (one query each for their per-query values, tie ranges and curves, instead of one per
    page). Each takes the board's test results for its run and corrects them over its own
    comparisons: the board's correction changes with every run added, a page only with its runs."""
    scope = board.scope
    values = {(row.run, m.name): (cell.value, row.queries) for row in board.rows
              for m, cell in zip(scope.measures, row.cells)}
    page_scope = replace(scope, summary=values)
    baseline = board.baseline
    results: dict[str, list[PairRow]] = {}
    for row in board.pair_rows:
        results.setdefault(row.run, []).append(row)
    meta = run_metadata(page_scope, list(dict.fromkeys([*runs, *([baseline] if baseline else [])])))
    # in the order the runs were stored: a batch's runs are then a narrow range of run ids, and
    # DuckDB reads only their part of scores (in the board's order each batch read most of it)
    ordered = sorted(runs, key=lambda run: meta[run]["run_id"])
    for start in range(0, len(ordered), batch):
        chunk = ordered[start:start + batch]
        pairs = [(run, None if run == baseline else baseline) for run in chunk]
        inputs = PageInputs.read(page_scope, pairs, meta, ensured=True)
        chosen = [(run, comparing, _chosen_query(inputs, run, comparing, query)) for run, comparing in pairs]
        asked = [page for page in chosen if page[2] is not None]
        ranks = dict(zip(asked, _relevant_ranks_many(scope, meta, asked)))
        for run, comparing, q in chosen:
            yield _page(inputs, board.stats, run, comparing, [replace(r) for r in results.get(run, [])], query,
                        from_leaderboard=True, ranks=ranks.get((run, comparing, q)))
        scope.wh.db.release_memory()  # the blocks of this batch's rows: the next batch reads others


@dataclass
class PageInputs:
    """What run pages read from the warehouse, for several (run, baseline) pairs at once."""

    scope: Scope
    meta: dict[str, dict[str, Any]]
    per_query: dict[tuple[str, str | None], dict[str, dict[str, tuple[float | None, float | None]]]]
    spreads: dict[tuple[str, str], tuple[float, float]]   # (run, query) -> primary over tie orders
    curves: dict[str, list[tuple[float, float]]]          # run -> precision-recall curve
    relevance: dict[str, int]                              # query -> relevant documents

    @classmethod
    def read(cls, scope: Scope, pairs: Sequence[tuple[str, str | None]], meta: dict[str, dict[str, Any]],
             ensured: bool = False) -> "PageInputs":
        """ensured: a leaderboard computed every score these pages read (tie forms included)."""
        ids = [(meta[run]["run_id"], meta[baseline or run]["run_id"]) for run, baseline in pairs]
        load_wanted(scope, scope.measures)
        scope.wh.db.load_rows("report_pairs", PAIR_COLUMNS, [(i, a, b) for i, (a, b) in enumerate(ids)])
        per_query: dict[tuple[str, str | None], dict[str, dict[str, tuple]]] = {pair: {} for pair in pairs}
        for index, _position, measure, q, run_value, baseline_value in scope.sql("paired_scores", {}).rows:
            per_query[pairs[index]].setdefault(q, {})[measure] = (run_value, baseline_value)
        runs = list(dict.fromkeys(run for run, _ in pairs))
        spreads = _tie_spreads(scope, runs, meta, ensured)
        if "relevance" not in scope.cache:
            scope.cache["relevance"] = {r[0]: r[2] for r in scope.sql("query_relevance", {
                "qrels_set_id": scope.qrels_id, "level": relevant_level(scope)}).rows}
        # the runs' curves, and the baselines' read once (a baseline's id widened every batch's
        # range of run ids, and so the part of scores DuckDB read)
        curves = pr_curves(scope, runs)
        baselines = scope.cache.setdefault("baseline curves", {})
        others = [name for name in dict.fromkeys(b for _, b in pairs if b) if name not in curves]
        if any(name not in baselines for name in others):
            baselines.update(pr_curves(scope, [name for name in others if name not in baselines]))
        curves.update({name: baselines[name] for name in others if name in baselines})
        return cls(scope, meta, per_query, spreads, curves, scope.cache["relevance"])


def _tie_spreads(scope: Scope, runs: Sequence[str], meta: dict[str, dict[str, Any]],
                 ensured: bool) -> dict[tuple[str, str], tuple[float, float]]:
    """Each run's primary measure per query over the orders of its tied documents: the stored
    scores of its lowest and highest forms (sql/measures/ties.sql), computed first where missing
    unless a leaderboard did. Empty when the measure has no such form, the settings leave it
    undefined (tie_forms), or a read-only warehouse never computed it."""
    ties = tie_forms(scope.primary, scope.settings)
    if len(ties) < 2 or not runs:
        return {}
    if not ensured:
        try:
            ensure_scores(scope.wh, scope.qrels, scope.qrels_id, runs, ties, scope.settings)
        except ReadOnlyError:
            return {}
    entries = wanted_entries(scope.wh, scope.qrels_id, scope.settings, ties)
    load_wanted_entries(scope, [entries[m.name] for m in ties])
    scope.wh.db.load_rows("report_pairs", PAIR_COLUMNS, [(i, meta[r]["run_id"], meta[r]["run_id"])
                                                         for i, r in enumerate(runs)])
    low, high = (m.name for m in ties)
    found: dict[tuple[str, str], dict[str, float]] = {}
    for index, _position, measure, q, value, _same in scope.sql("paired_scores", {}).rows:
        if value is not None:
            found.setdefault((runs[index], q), {})[measure] = value
    return {key: (v[low], v[high]) for key, v in found.items() if low in v and high in v}


def _query_rows(inputs: PageInputs, run: str, comparing: str | None) -> list[QueryRow]:
    """The run's per-query rows (queries only the baseline was evaluated on left out)."""
    shown = inputs.scope.measures
    primary = inputs.scope.primary.name
    per_query = inputs.per_query[(run, comparing)]
    query_rows = []
    for q in sorted(per_query, key=query_order):
        values = per_query[q]
        run_primary, base_primary = values.get(primary, (None, None))
        if run_primary is None:
            continue  # a query only the baseline was evaluated on
        delta = run_primary - base_primary if comparing and base_primary is not None else None
        query_rows.append(QueryRow(q, [values.get(m.name, (None, None))[0] for m in shown],
                                   base_primary if comparing else None, delta,
                                   inputs.spreads.get((run, q))))
    return query_rows


def _chosen_query(inputs: PageInputs, run: str, comparing: str | None, query: str | None) -> str | None:
    """The query a page shows the relevant documents of (as _page chooses it)."""
    return _choose_query(query, _query_rows(inputs, run, comparing), inputs.relevance, comparing,
                         inputs.scope.primary.name)[0]


def _page(inputs: PageInputs, stats: StatsSettings, run: str, comparing: str | None, pair_rows: list[PairRow],
          query: str | None, *, from_leaderboard: bool, ranks: tuple | None = None) -> RunPage:
    """A run page from what PageInputs read and the run's test results (corrected here, over the
    page's own comparisons). ranks: _relevant_ranks of its chosen query, when read already."""
    scope = inputs.scope
    shown = scope.measures
    meta = inputs.meta
    names = [run] + ([comparing] if comparing else [])
    if comparing:
        tested = correct_together(pair_rows, stats).tested
        family_text = f"over {plural(tested, 'comparison')}: {run} against {comparing} x {plural(tested, 'measure')}"
    else:
        pair_rows, family_text = [], "no comparisons"
    by_measure = {r.measure.name: r for r in pair_rows}
    summary = [(m, scope.summary.get((run, m.name), (None, 0))[0], by_measure.get(m.name)) for m in shown]
    primary = scope.primary.name
    query_rows = _query_rows(inputs, run, comparing)
    difference_chart = None
    if comparing:
        diffs = [(r.query, r.delta) for r in query_rows if r.delta is not None]
        if diffs:
            primary_pair = by_measure.get(primary)
            wtl = (f"{wins_ties_losses(primary_pair.result)} over {plural(primary_pair.paired, 'query', 'queries')}"
                   if primary_pair and primary_pair.result else "")
            difference_chart = charts.difference_bars(
                diffs, title=f"{primary}: {run} minus {comparing}, per query", y_label=f"\u0394 {primary}",
                x_label=f"queries by difference ({len(diffs)})", summary=wtl)
    pr_chart = pr_curve_chart(scope, names, f"11-point interpolated precision-recall: {', '.join(names)}",
                              curves=inputs.curves)
    chosen, reason = _choose_query(query, query_rows, inputs.relevance, comparing, primary)
    relevant, retrieved, baseline_retrieved, strip = [], 0, None, None
    if chosen is not None:
        relevant, retrieved, baseline_retrieved, strip = (
            ranks if ranks is not None else _relevant_ranks(scope, meta, run, comparing, chosen))
    return RunPage(scope, stats, run, meta[run], comparing, meta.get(comparing) if comparing else None, summary,
                   query_rows, difference_chart, pr_chart, chosen, reason, relevant, retrieved, baseline_retrieved,
                   strip, settings_items(scope, stats if comparing else None, family_text), family_text,
                   from_leaderboard,
                   any(r.tie_range is not None and r.tie_range[1] - r.tie_range[0] > 1e-12 for r in query_rows),
                   tie_forms_left_out(scope.primary, scope.settings))


def query_order(query: str) -> tuple:
    """Query ids in numeric order where they are numbers (112700 before 1121909), the others after
    them in text order."""
    return (0, int(query), query) if query.isdecimal() else (1, 0, query)


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
    ties = tie_forms(primary, scope.settings)
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
    # what every page shares (and the baseline's inputs) is keyed once: a page's own key is over
    # that key and its run's inputs, so adding a run encodes each run's inputs, not the whole again
    shared = {False: page_key({**common, "baseline run": base_inputs}),
              True: page_key({**common, "baseline run": None})}  # the baseline's own page
    return {name: page_key({"shared": shared[name == board.baseline], "run": meta[name],
                            "versions": versions.get(meta[name]["run_id"], [])})
            for name in names}


def relevant_level(scope: Scope) -> int:
    """The grade from which the page's query's documents are relevant: the primary measure's own
    level (AP(rel=2)) where it has one, else the evaluation's. A page choosing the query by
    AP(rel=2) listed 110 documents of grade 1 and up as relevant where trec_eval -l 2 counts 5 (a
    report walk)."""
    level = scope.primary.level
    return scope.settings.level if level is None else level


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


RANK_PAGE_COLUMNS = [("page", "integer"), ("run_id", "integer"), ("run_position", "integer"), ("query_id", "varchar")]
RANK_PAGES_PER_QUERY = 24  # at most 48 runs a query: DuckDB then skips run_rows' other row groups
# (its join filter lists the runs' ids up to dynamic_or_filter_threshold, 50; past it, a range)


def _relevant_ranks(scope: Scope, meta: dict[str, dict[str, Any]], run: str, baseline: str | None, query: str):
    return _relevant_ranks_many(scope, meta, [(run, baseline, query)])[0]


def _relevant_ranks_many(scope: Scope, meta: dict[str, dict[str, Any]],
                         pages: Sequence[tuple[str, str | None, str]]) -> list[tuple]:
    """Where the relevant documents of each page's query sit in its run's and baseline's rankings
    (sql/reports/relevant_ranks.sql), RANK_PAGES_PER_QUERY pages a query: for each (run, baseline,
    query), (rows, retrieved, baseline retrieved, strip chart)."""
    s = scope.settings
    params = {"qrels_set_id": scope.qrels_id, "level": relevant_level(scope), "depth": s.depth or NO_DEPTH,
              "compat": s.compat, "judged_only": s.judged_only}
    found: dict[int, tuple[dict[int, list[tuple[str, int, int | None]]], dict[int, int]]] = {
        page: ({}, {}) for page in range(len(pages))}
    for start in range(0, len(pages), RANK_PAGES_PER_QUERY):
        rows = []
        for page in range(start, min(start + RANK_PAGES_PER_QUERY, len(pages))):
            run, baseline, query = pages[page]
            names = [run] + ([baseline] if baseline else [])
            rows += [(page, meta[n]["run_id"], position, query) for position, n in enumerate(names)]
        scope.wh.db.load_rows("report_rank_pages", RANK_PAGE_COLUMNS, rows)
        for page, run_id, doc, grade, rank, count in scope.sql("relevant_ranks", params).rows:
            by_run, retrieved = found[page]
            by_run.setdefault(run_id, []).append((doc, grade, rank))
            retrieved[run_id] = count
    out = []
    for page, (run, baseline, query) in enumerate(pages):
        by_run, retrieved = found[page]
        names = [run] + ([baseline] if baseline else [])
        run_docs = by_run.get(meta[run]["run_id"], [])
        base_docs = {doc: rank for doc, _g, rank in by_run.get(meta[baseline]["run_id"], [])} if baseline else {}
        rows = [RankRow(doc, grade, rank, base_docs.get(doc)) for doc, grade, rank in run_docs]
        strip_rows = [(name, by_run.get(meta[name]["run_id"], []), retrieved.get(meta[name]["run_id"], 0))
                      for name in names]
        strip = charts.rank_strip(strip_rows, title=f"ranks of the relevant documents of query {query}") \
            if rows else None
        out.append((rows, retrieved.get(meta[run]["run_id"], 0),
                    retrieved.get(meta[baseline]["run_id"], 0) if baseline else None, strip))
    return out


def render_run_page(page: RunPage, leaderboard_href: str | None = None) -> str:
    # a leaderboard's run page compares every run with the board's baseline but the baseline itself
    return render("run.html", page=page, title=f"Run {page.run}", leaderboard_href=leaderboard_href,
                  is_board_baseline=leaderboard_href is not None and page.baseline is None, settings=page.settings)
