"""History: each system's runs over time on one measure, each tested against the run before it."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from warehouse.store import catalog
from warehouse.reports import charts
from warehouse.evaluation.evaluator import Settings
from warehouse.errors import UsageError
from warehouse.evaluation.measures import Measure, at_level, parse_all
from warehouse.evaluation.stats import StatsSettings, unreachable_said
from warehouse.formats.table import Table, Tabular
from warehouse.reports.display import fmt_date, fmt_datetime, fmt_delta, fmt_p, fmt_value, plural
from warehouse.reports.files import write_page
from warehouse.reports.footer import settings_items
from warehouse.formats.cells import said_name
from warehouse.formats.escaping import shown as shown_text
from warehouse.reports.pairs import PairRow, correct_together, correction_said, tested_pairs
from warehouse.reports.render import render
from warehouse.reports.scope import Scope, load_run_order, load_scope, run_ids_in_order

if TYPE_CHECKING:  # annotations only: the reports take the Warehouse (warehouse/core.py) that calls them
    from warehouse.core import Warehouse

EPOCH = dt.datetime(1970, 1, 1)  # the chart position of a run without a date
CHARTED_SYSTEMS = 12  # more systems with two or more runs than this: no chart of each, one table of all


@dataclass
class HistoryRun:
    run: str
    description: str | None
    date: dt.datetime | None
    value: float
    queries: int
    best_so_far: float
    is_best: bool
    previous: str | None
    pair: PairRow | None
    system: str = ""

    @property
    def flagged(self) -> bool:
        return self.pair is not None and self.pair.significant and self.pair.result.diff < 0

    @property
    def improved(self) -> bool:
        return self.pair is not None and self.pair.significant and self.pair.result.diff > 0


@dataclass
class SystemHistory:
    system: str
    runs: list[HistoryRun]
    chart: charts.HistoryChart | None     # drawn only for a system with two or more runs

    @property
    def flags(self) -> int:
        return sum(1 for r in self.runs if r.flagged)


@dataclass
class HistoryPage(Tabular):
    scope: Scope
    stats: StatsSettings
    systems: list[SystemHistory]
    tested: int
    settings: list[tuple[str, str]]
    family: str
    overview: charts.HistoryChart         # every run, and the best of the whole board so far
    selection: Any = None                 # the runs chosen (catalog.RunSelection), and those left out

    def __repr__(self) -> str:
        # the dataclass's own repr printed every run, chart and Measure (the walk: pages of it); as
        # Leaderboard's, what it is
        runs = sum(len(system.runs) for system in self.systems)
        return (f"<History on qrels {said_name(self.scope.qrels)} by {shown_text(self.scope.primary.name)}: "
                f"{plural(len(self.systems), 'system')}, {plural(runs, 'run')}, {plural(self.tested, 'step')} tested "
                f"({correction_said(self.stats.correction)}); {self.scope.settings.describe()}>")

    @property
    def unreachable(self) -> str:
        """What the page (and the command) says when no step can be flagged (stats.unreachable_said)."""
        return unreachable_said(self.tested, self.stats)

    @property
    def measure(self) -> Measure:
        return self.scope.primary

    @property
    def runs(self) -> int:
        return sum(len(s.runs) for s in self.systems)

    @property
    def charted(self) -> bool:
        """Each system with two or more runs has its chart and table (else one table of them all)."""
        return all(s.chart is not None for s in self.with_history)

    @property
    def history_rows(self) -> list[HistoryRun]:
        """The runs of the systems with two or more runs, system by system, in time order."""
        return [r for s in self.with_history for r in s.runs]

    @property
    def with_history(self) -> list[SystemHistory]:
        """Systems with two or more runs: each gets its chart and table."""
        return [s for s in self.systems if len(s.runs) > 1]

    @property
    def single_runs(self) -> list[HistoryRun]:
        """The run of each system that has only one, in time order (then by name): one table."""
        return sorted((s.runs[0] for s in self.systems if len(s.runs) == 1),
                      key=lambda r: (r.date or EPOCH, r.run))

    @property
    def partial_pairing(self) -> bool:
        """Some run was tested against the run before it over fewer queries than either has."""
        return any(r.pair is not None and r.pair.result is not None and not r.pair.same_queries
                   for s in self.systems for r in s.runs)

    @property
    def one_moment(self) -> bool:
        """Every run has (nearly) the same date, as run files copied together do: no order in time."""
        dates = [(r.date or EPOCH) for s in self.systems for r in s.runs]
        return len(dates) > 1 and (max(dates) - min(dates)).total_seconds() < 1

    @cached_property
    def timed(self) -> bool:
        """Dates show their time of day, else (runs dated by day) the day alone."""
        return _with_time(r.date for s in self.systems for r in s.runs)

    @property
    def single_show_system(self) -> bool:
        """That table's System column says something only when a system is not named as its run."""
        return any(r.system != r.run for r in self.single_runs)

    @property
    def flags(self) -> int:
        return sum(s.flags for s in self.systems)

    def table(self) -> Table:
        """Every system's runs in time order as data (irw report history --format json|csv|...)."""
        # delta is over the queries both runs answer (shared_queries), each mean over the run's own
        # (queries): where they differ, delta is not the difference of the two means shown
        columns = ["system", "run", "run_date", self.measure.name, "best_so_far", "previous", "delta", "p_adjusted",
                   "verdict", "queries", "shared_queries"]
        rows = []
        for system in self.systems:
            for r in system.runs:
                result = r.pair.result if r.pair else None
                verdict = ("worse" if r.flagged else "better" if r.improved else
                           "no significant change" if result else None)
                rows.append((system.system, r.run, r.date, r.value, r.best_so_far, r.previous,
                             result.diff if result else None, r.pair.p_adjusted if result else None, verdict,
                             r.queries, r.pair.paired if result else None))
        return Table(columns, rows)


def history(wh: Warehouse, qrels: str, measure: str | Sequence[str] = "AP", *, runs: str | Sequence[str] | None = None,
            systems: str | Sequence[str] | None = None, settings: Settings | None = None,
            stats: StatsSettings | None = None) -> HistoryPage:
    """Each system's runs over time on one measure, the best so far, and every newer run tested
    against the run before it (one family, corrected together).

    runs and systems choose the runs as Warehouse.select_runs does: names and shell-style
    patterns (default: every stored run), of these systems; the runs a pattern, a system or the
    default chose that qrels does not judge are left out (HistoryPage.selection says which)."""
    settings = settings or Settings()
    given = [measure] if isinstance(measure, str) else list(measure)
    refuse_several(given, settings, "the history follows one measure")
    stats = stats or StatsSettings()
    selection = catalog.select_runs(wh.db, runs, systems=systems, qrels=qrels)
    names = sorted(selection)
    scope = load_scope(wh, qrels, given, names, settings, summary=False)  # history.sql summarizes
    m = scope.primary
    w = scope.wanted[m.name]
    load_run_order(wh, run_ids_in_order(wh, names))  # report_runs: the runs the page shows
    table = scope.sql("history", {"evaluation_id": w["evaluation_id"], "stored": w["stored"]})
    rows = table.to_dicts()
    id_to_name = {r["run_id"]: r["run"] for r in rows}
    pairs = [(r["run"], id_to_name[r["previous_run_id"]]) for r in rows if r["previous_run_id"] in id_to_name]
    pair_rows = tested_pairs(scope, pairs, [m], stats)
    family = correct_together(pair_rows, stats)
    by_run = {r.run: r for r in pair_rows}
    grouped: dict[str, list[HistoryRun]] = {}
    for r in rows:
        grouped.setdefault(r["system"], []).append(HistoryRun(
            r["run"], r["description"], r["run_date"], r["value"], r["queries"], r["best_so_far"],
            r["value"] == r["best_so_far"], id_to_name.get(r["previous_run_id"]), by_run.get(r["run"]), r["system"]))
    top = max([r["value"] for r in rows] + [0.0])
    dates = [r["run_date"] or EPOCH for r in rows]
    domain = (min(dates), max(dates)) if dates else None
    with_time = _with_time(r["run_date"] for r in rows)
    date_text = fmt_datetime if with_time else fmt_date
    out, everything = [], []
    # with many systems, their runs go in one table and only the overview is drawn (a chart per
    # system would be most of the page: ~5 KB each)
    draw_systems = sum(1 for runs in grouped.values() if len(runs) > 1) <= CHARTED_SYSTEMS
    for system, runs in grouped.items():
        points = []
        for h in runs:
            text = f"{h.run} ({date_text(h.date)}): {m.name} {fmt_value(h.value)}"
            # the overview's dots say less (a thousand of them): the tables give the tests
            everything.append((h.date or EPOCH, h.run, h.value, (text if system == h.run else f"{system}: {text}")
                               + ("; significantly worse than the run before it" if h.flagged else ""), h.flagged,
                               system))
            if h.pair is not None and h.pair.result is not None:
                verdict = ("significantly worse than" if h.flagged else "significantly better than" if h.improved
                           else "not significantly different from")
                text += (f"; {verdict} {h.previous} ({fmt_delta(h.pair.result.diff)}, corrected p "
                         f"{fmt_p(h.pair.p_adjusted)})")
            points.append((h.date or EPOCH, h.value, text, h.flagged))
        # one dot says nothing over time: a system with a single run is listed in a table instead
        chart = charts.history_chart(
            points, title=f"{system}: {m.name} of its runs over time", y_label=m.name, y_top=top,
            time_domain=domain, with_time=with_time) if len(runs) > 1 and draw_systems else None
        out.append(SystemHistory(system, runs, chart))
    # the overview: every run in time order (then by name), and the best of the board so far
    everything.sort(key=lambda p: (p[0], p[1]))
    overview = charts.history_chart(
        [(when, value, text, flagged) for when, _run, value, text, flagged, _system in everything],
        title=f"Every run's {m.name} over time, and the best so far", y_label=m.name, y_top=top,
        time_domain=domain, systems=[system for *_, system in everything], with_time=with_time)
    family_text = f"over {plural(family.tested, 'comparison')}: each run against the run of its system before it"
    return HistoryPage(scope, stats, out, family.tested, settings_items(scope, stats, family_text), family_text,
                       overview, selection)


def _with_time(dates: Iterable[dt.datetime | None]) -> bool:
    """Whether a run's date has a time of day: runs dated by day (irw edit run --date 2024-01-15)
    are at midnight, and a page of them shows no 00:00:00 (nor ticks of hours)."""
    return any(date is not None and date.time() != dt.time() for date in dates)


def refuse_several(given: list[str], settings: Settings, what: str) -> None:
    """The measures given must name one measure with a score: several (-m nDCG@10 -m AP, or one
    name of several: ndcg_cut.5,10, all_trec) are a mistake, never their first or last; what says
    why ("the history follows one measure")."""
    named = [m.name for m in at_level(parse_all(given, settings.compat), settings.level) if m.family.sql is not None]
    if len(named) == 1 or given and not named:  # none with a score (runid): load_scope says so
        return
    shown = ", ".join(named) if len(named) <= 4 else f"{', '.join(named[:3])} and {len(named) - 3} more"
    if len(named) > len(given):  # a name of several measures: say which it named
        shown += " from " + " ".join(f"-m {spec}" for spec in given)
    raise UsageError(f"{what}, and {len(named)} were given ({shown or 'none'}): "
                     f"name one (-m {named[0] if named else 'AP'})")


def render_history(page: HistoryPage) -> str:
    return render("history.html", page=page, title=f"History: {page.measure.name} on {page.scope.qrels}",
                  settings=page.settings)


def write_history(wh: Warehouse, qrels: str, path: Path, measure: str = "AP", **options: Any) -> Path:
    return write_page(path, render_history(history(wh, qrels, measure, **options)))
